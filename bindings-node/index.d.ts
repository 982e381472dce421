/** A node of a code graph. */
export interface Symbol {
  /** Fully qualified identifier, e.g. "pkg/auth.Middleware". */
  qualifiedName: string;
  /** Node type: "function", "type", "method", ... */
  kind: string;
  /** Relevance, 0.0 to 1.0. */
  score: number;
  /** How the symbol was found: "lsp_resolved", "ast_inferred", ... */
  provenance: string;
  /** Hops from the query center: 0 target, 1 related, 2+ extended. */
  distance: number;
  /** Optional signature. */
  signature?: string;
  /** Optional score breakdown. */
  components?: Components;
}

/** A symbol's score breakdown. */
export interface Components {
  blastRadius: number;
  confidence: number;
  recency: number;
  distance: number;
}

/** A directed relationship between two symbols. */
export interface Edge {
  source: string;
  target: string;
  edgeType: string;
  /** "added", "removed" or "unchanged" in diff responses. */
  status?: string;
}

/** A graph payload, in and out of encode/decode. */
export interface Payload {
  tool: string;
  tokenBudget: number;
  tokensUsed: number;
  /** Content-addressed identity, `sha256:<hex>`. */
  packRoot?: string;
  symbols: Symbol[];
  edges: Edge[];
}

/** The difference between a consumer's snapshot and the current result. */
export interface DeltaPayload {
  tool: string;
  baseRoot: string;
  newRoot: string;
  removed: Symbol[];
  added: Symbol[];
  removedEdges: Edge[];
  addedEdges: Edge[];
  deltaTokens: number;
  fullTokens: number;
}

/** How integers beyond 2^53 are read or written. */
export type LargeIntMode = 'number' | 'string' | 'bigint' | 'error';

/** Options of encodeGeneric. */
export interface GenericOptions {
  /** Write fixed-shape nested objects as attachments, not "a>b" path columns. */
  noFlatten?: boolean;
  /** Factor columns holding one value in every row (off by default, as 2.5.2 predates it). */
  constantColumns?: boolean;
  /** 'error' refuses integral numbers beyond 2^53; the default writes them as doubles. */
  largeInt?: LargeIntMode;
}

/** Options of decodeGeneric and parseJSONOrdered. */
export interface DecodeOptions {
  /** What an integer beyond 2^53 becomes; 'number' (the default) is 2.5.2's lossy number. */
  largeInt?: LargeIntMode;
}

/** The errors this package throws: an Error whose message starts with the category. */
export declare class GcfError extends Error {
  /** The spec's error category, e.g. "count_mismatch". */
  readonly category: string;
  /** 1-based line of the input, when known. */
  readonly line?: number;
  /** 1-based column of the input, when known. */
  readonly column?: number;
  /** The failure class: "data", "json", "usage", ... */
  readonly errorClass: string;
  /** The message without the category and position. */
  readonly detail: string;
}

export declare const KIND_ABBREV: Record<string, string>;
export declare const KIND_EXPAND: Record<string, string>;

export declare function encode(p: Payload): string;
export declare function decode(input: string | Uint8Array): Payload;
export declare function encodeGeneric(data: unknown, opts?: GenericOptions): string;
export declare function decodeGeneric(input: string | Uint8Array, opts?: DecodeOptions): any;
export declare function parseJSONOrdered(text: string, opts?: DecodeOptions): unknown;
