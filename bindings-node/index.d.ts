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

/**
 * Where a symbol is defined: a line of the `## loc` section (spec 3.6.0,
 * which 2.5.2 predates). Lines and columns are 1-based.
 */
export interface Location {
  /** The qualified name of a symbol of the same payload. */
  qualifiedName: string;
  file: string;
  line: number;
  column: number;
  /** The end of the symbol's range, when known (both or neither). */
  endLine?: number;
  endColumn?: number;
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
  /**
   * Definition sites, written as a `## loc` section (not in 2.5.2, which
   * writes none and refuses such text). `decode` sets it only when the
   * text has one.
   */
  locations?: Location[];
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

/**
 * Decode limits (spec §12; not in 2.5.2, which has none): input past one fails with
 * `limit_exceeded` at its line. Each member is optional (absent for the default); an
 * unknown member or a value out of range throws a GcfError of category `usage`.
 */
export interface Limits {
  /** Nesting depth of objects and arrays, 1 to 128 (the default). */
  maxDepth?: number;
  /** Elements of one array or object, rows of one table, symbols or edges of a graph (default 100,000,000). */
  maxContainerLen?: number;
  /** Bytes in one line (default 64 MiB). */
  maxLineLen?: number;
  /** Fields in one field declaration, a table header or an inline schema (default 65,536). */
  maxFields?: number;
  /** Bytes of input (default: no limit). */
  maxInputLen?: number;
  /** Bytes of values written once and decoded into every row (constant columns, groups), fixed part (default 64 MiB). */
  maxExpansion?: number;
  /** The same, per byte of input (default 64). */
  maxExpansionRatio?: number;
}

/** Options of decode, decodeDelta, decodeGenericDelta and decodeGenericFull (not in 2.5.2). */
export interface LimitOptions {
  limits?: Limits;
}

/** Options of decodeGeneric. */
export interface GenericDecodeOptions extends DecodeOptions, LimitOptions {}

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
export declare function decode(input: string | Uint8Array, opts?: LimitOptions): Payload;
export declare function encodeGeneric(data: unknown, opts?: GenericOptions): string;
export declare function decodeGeneric(input: string | Uint8Array, opts?: GenericDecodeOptions): any;
export declare function parseJSONOrdered(text: string, opts?: DecodeOptions): unknown;

/** Symbols already sent to a client (spec §9): later payloads refer to them as `@N`. */
export declare class Session {
  /** Whether the symbol went out in an earlier response. */
  transmitted(qname: string): boolean;
  /** The session id of a sent symbol, or -1. */
  getID(qname: string): number;
  /** Marks symbols as sent, assigning ids. */
  record(symbols: Symbol[]): void;
  /** How many symbols the session holds. */
  size(): number;
  /** The id the next new symbol gets. */
  nextSessionID(): number;
  /** Forgets everything. */
  reset(): void;
}
/**
 * The consumer side of a session (spec §9.2; not in 2.5.2, whose `decode`
 * refuses bare references, as `decode` does here): decode every payload of
 * one session with one decoder, and a bare reference
 * (`@N  # previously transmitted`) comes back as the symbol delivered before.
 * A reference to an id never delivered throws `unknown_edge_reference` (ask
 * the producer for a full payload); a payload without `session=true` starts
 * a new session; on error nothing is remembered.
 */
export declare class SessionDecoder {
  /** `maxRetained` bounds the symbols remembered: past it the session is forgotten. */
  constructor(opts?: { maxRetained?: number });
  /** One payload of the session (a string, or UTF-8 bytes); `opts.limits` as for `decode`. */
  decode(input: string | Uint8Array, opts?: LimitOptions): Payload;
  /** How many symbols are remembered. */
  size(): number;
  /** Forgets the session. */
  reset(): void;
}
/** Encodes with session deduplication; a null session is a plain encode. */
export declare function encodeWithSession(p: Payload, sess: Session | null): string;

export declare function encodeDelta(d: DeltaPayload): string;
export declare function decodeDelta(input: string, opts?: LimitOptions): DeltaPayload;
/** Applies a delta to a base and checks the new pack root; throws `root_mismatch` otherwise. */
export declare function verifyDelta(
  baseSymbols: Symbol[],
  baseEdges: Edge[],
  removedSymbols: Symbol[],
  addedSymbols: Symbol[],
  removedEdges: Edge[],
  addedEdges: Edge[],
  expectedNewRoot: string,
): { symbols: Symbol[]; edges: Edge[] };
/** The graph pack root, `sha256:<hex>`. */
export declare function packRoot(symbols: Symbol[], edges: Edge[]): string;

/** A keyed record set, the unit of generic deltas (spec §10a). */
export interface GenericSet {
  name?: string;
  key: string;
  fields: string[];
  rows: Array<Record<string, unknown>>;
}
/** A diff between two GenericSets. */
export interface GenericDeltaPayload {
  tool?: string;
  key: string;
  fields: string[];
  baseRoot: string;
  newRoot: string;
  added: Array<Record<string, unknown>>;
  changed: Array<Record<string, unknown>>;
  removed: unknown[];
  deltaTokens?: number;
  fullTokens?: number;
}
export declare function canonicalCell(v: unknown): string;
export declare function genericPackRoot(s: GenericSet): string;
export declare function diffGenericSets(base: GenericSet, next: GenericSet): GenericDeltaPayload;
export declare function encodeGenericFull(s: GenericSet, tool: string): string;
export declare function encodeGenericDelta(d: GenericDeltaPayload): string;
export declare function verifyGenericDelta(base: GenericSet, d: GenericDeltaPayload, expectedNewRoot: string): GenericSet;
export declare function decodeGenericDelta(text: string, opts?: LimitOptions): GenericDeltaPayload;

/** The re-anchor cadence of a GenericDeltaSession. */
export declare enum ReanchorMode {
  FixedN = 0,
  SizeGuard = 1,
}
export declare const DEFAULT_REANCHOR_N = 15;
export interface ReanchorPolicy {
  mode: ReanchorMode;
  n: number;
}
export declare function fixedN(n: number): ReanchorPolicy;
export declare function sizeGuard(): ReanchorPolicy;
export interface SessionEmission {
  wire: string;
  isFull: boolean;
}
/** Holds the base and re-anchor state of a generic delta producer loop. */
export declare class GenericDeltaSession {
  constructor(base: GenericSet, tool: string, policy: ReanchorPolicy);
  currentFull(): string;
  turn(): number;
  next(nextSet: GenericSet): SessionEmission;
}

export declare function formatScalar(v: unknown, delimiter?: number): string;
export declare function formatKey(s: string): string;
export declare function parseScalar(s: string, tabularContext: boolean): any;
export declare function needsQuote(s: string): boolean;
export declare function quoteString(s: string): string;

/** Options of StreamEncoder. */
export interface StreamOptions {
  tokenBudget?: number;
  tokensUsed?: number;
  /** Adds `pack_root=` to the header. */
  packRoot?: string;
  /** Adds `session=true` to the header. */
  session?: boolean;
  /** The `label:count` trailer form (spec §8.4.1). */
  labeledTrailerCounts?: boolean;
}
/** Where a stream's text goes. */
export interface StreamWriter {
  write(chunk: string): void;
}
/** A StreamWriter that can also say when it has room again. */
export interface ReadyStreamWriter extends StreamWriter {
  ready(): Promise<void>;
}
/** Writes a graph payload as symbols and edges arrive, in batches. */
export declare class StreamEncoder {
  constructor(w: StreamWriter, tool: string, opts?: StreamOptions);
  writeSymbol(s: Symbol): void;
  writeEdge(e: Edge): void;
  /** Emit a bare reference for a previously-transmitted symbol (session mode): the next id, counted in its distance group. */
  writeBareRef(qname: string, distance: number): void;
  /** Hands everything written so far to the writer now (an addition to 2.5.2; output otherwise goes in batches of about 64 KiB, and the rest on close). */
  flush(): void;
  close(): void;
  get symbolCount(): number;
  get edgeCount_(): number;
}
/** Writes generic tables as rows arrive (2.5.2's wire), in batches. */
export declare class GenericStreamEncoder {
  constructor(writer: StreamWriter);
  /** Starts a `[?]` table, closing any open one. */
  beginArray(name: string, fields: string[]): void;
  /** Starts a `[?:]` keyed map; each row is `[key, ...values]`. */
  beginKeyedMap(name: string, keyLabel: string, valueFields: string[]): void;
  /** One row; dropped when no table is open, as in 2.5.2. */
  writeRow(values: unknown[]): void;
  endArray(): void;
  writeKV(key: string, value: unknown): void;
  writeSection(name: string): void;
  writeInlineArray(name: string, values: unknown[]): void;
  /** Hands everything written so far to the writer now (an addition to 2.5.2). */
  flush(): void;
  /** Writes the trailer; throws for a field name containing `>`. */
  close(): void;
}
/** Adapts a Node Writable; `ready()` resolves once a full buffer drained. */
export declare function toNodeWritable(writable: { write(chunk: string): boolean; once(event: 'drain', fn: () => void): unknown }): ReadyStreamWriter;
/** Adapts a WHATWG WritableStream<string>. */
export declare function toWebWritable(stream: WritableStream<string>): ReadyStreamWriter & { close(): Promise<void> };
export declare function decodeGenericFull(text: string, opts?: LimitOptions): { set: GenericSet; packRoot: string };
