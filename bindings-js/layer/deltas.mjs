// Sessions, deltas and pack roots (2.5.2's session.ts, delta.ts,
// generic_delta.ts, generic_delta_session.ts): the policy is the core's; this
// file converts arguments and results.

import { GcfError, call, callValue, checkLength } from './errors.mjs';
import { toJSON } from './convert.mjs';
import { withLimits } from './limits.mjs';
import { decodeText } from './text.mjs';

export function install(E, gcf) {
  /** Symbols already sent to a client (spec §9), by qualified name. */
  class Session {
    constructor() {
      this._native = new E.NativeGraphSession();
      this._ids = new Map();
    }
    transmitted(qname) {
      return this._ids.has(qname);
    }
    getID(qname) {
      const id = this._ids.get(qname);
      return id === undefined ? -1 : id;
    }
    /**
     * Marks symbols as sent, by name, as 2.5.2 does: a new name takes the
     * next id; nothing else is read or checked (nothing is written).
     */
    record(symbols) {
      for (const s of symbols) {
        const name = s.qualifiedName;
        if (this._ids.has(name)) continue;
        this._ids.set(name, this._native.record(String(s.kind ?? ''), String(name)));
      }
    }
    size() {
      return this._native.size();
    }
    nextSessionID() {
      return this._native.nextId();
    }
    reset() {
      this._native.reset();
      this._ids.clear();
    }
    _learn(symbols) {
      for (const s of symbols) {
        const id = this._native.idOf(s.kind, s.qualifiedName);
        if (id >= 0) this._ids.set(s.qualifiedName, id);
      }
    }
  }

  /**
   * The consumer side of a session (spec §9.2; not in 2.5.2, whose decode,
   * like ours, refuses a bare reference at its line): decode every payload of one
   * session with one decoder, and a bare reference comes back as the
   * symbol delivered before. `maxRetained` bounds the symbols remembered
   * (past it the session is forgotten).
   */
  class SessionDecoder {
    constructor(opts) {
      const max = opts == null ? undefined : opts.maxRetained;
      if (max != null && !(Number.isSafeInteger(max) && max >= 0)) {
        throw new GcfError('usage', `SessionDecoder: maxRetained must be an integer from 0, not ${String(max)}`, null, null, 'usage');
      }
      // -1: no bound.
      this._native = new E.NativeGraphSessionDecoder(max == null ? -1 : max);
    }
    /** One payload of the session (a string, or UTF-8 bytes); `opts.limits` as for `decode`. */
    decode(input, opts) {
      const bytes = input instanceof Uint8Array;
      const run = bytes ? () => this._native.decodeBytes(input) : () => decodeText(input, (s) => this._native.decode(s));
      const p = JSON.parse(withLimits(E, opts, () => call(run)));
      // 2.5.2 gives every decoded edge a `status` key, undefined without one.
      for (const e of p.edges) if (e.status === '') e.status = undefined;
      return p;
    }
    /** How many symbols are remembered. */
    size() {
      return this._native.size();
    }
    /** Forgets the session. */
    reset() {
      this._native.reset();
    }
  }

  function encodeWithSession(p, sess) {
    if (!sess) return gcf.encode(p);
    const text = callValue(() => sess._native.encode(JSON.stringify(p)));
    sess._learn(p.symbols || []);
    return text;
  }

  function verifyDelta(baseSymbols, baseEdges, removedSymbols, addedSymbols, removedEdges, addedEdges, expectedNewRoot) {
    const lists = { baseSymbols, baseEdges, removedSymbols, addedSymbols, removedEdges, addedEdges };
    for (const what in lists) checkLength(lists[what], what);
    const base = JSON.stringify({ symbols: baseSymbols, edges: baseEdges });
    const delta = JSON.stringify({ removed: removedSymbols, added: addedSymbols, removedEdges, addedEdges });
    const next = JSON.parse(callValue(() => E.graphVerifyDelta(base, delta, String(expectedNewRoot))));
    // 2.5.2 returns the caller's own objects (every property they carry, in
    // their order): each entry of the result is found by its identity among
    // the inputs it came from, an added one taking the place of a base one.
    const own = (lists, key) => {
      const byKey = new Map();
      for (const list of lists) for (const x of list || []) if (x !== null && typeof x === 'object') byKey.set(key(x), x);
      return (x) => byKey.get(key(x)) ?? x;
    };
    const symbol = own([baseSymbols, addedSymbols], (s) => `${s.kind}\t${s.qualifiedName}`);
    const edge = own([baseEdges, addedEdges], (e) => `${e.source}\t${e.target}\t${e.edgeType}`);
    return { symbols: next.symbols.map(symbol), edges: next.edges.map(edge) };
  }

  function packRoot(symbols, edges) {
    checkLength(symbols, 'symbols');
    checkLength(edges, 'edges');
    return callValue(() => E.graphPackRoot(JSON.stringify({ symbols, edges })));
  }

  // A set's or delta's own wrapping (the set, its rows) comes on top of its
  // values' depth: the engine allows gcf-bind's MODEL_NESTING (16) levels
  // for it, and decides (with the path) past that.
  const setJSON = (s) => toJSON(s, 'number', -16);

  const genericPackRoot = (s) => callValue(() => E.genericPackRoot(setJSON(s)));
  const encodeGenericFull = (s, tool) => callValue(() => E.genericEncodeFull(setJSON(s), tool == null ? '' : String(tool)));
  const encodeGenericDelta = (d) => callValue(() => E.genericEncodeDelta(setJSON(d)));
  function decodeGenericFull(text, opts = undefined) {
    const { set: s, packRoot } = JSON.parse(withLimits(E, opts, () => call(() => decodeText(text, (s) => E.genericDecodeFull(s)))));
    // 2.5.2's member order, and a name only when a section line gave one.
    const set = { key: s.key, fields: s.fields, rows: s.rows };
    if (s.name) set.name = s.name;
    return { set, packRoot };
  }
  // 2.5.2's members, in its order: a decoded delta's `tool` is undefined
  // when the header has none, a diff has no `tool` at all, and neither has
  // token counts (kept here when the header gives them: nothing is lost).
  const delta = (d, decoded) => {
    const out = decoded ? { tool: d.tool === '' ? undefined : d.tool } : {};
    Object.assign(out, {
      key: d.key,
      fields: d.fields,
      baseRoot: d.baseRoot,
      newRoot: d.newRoot,
      added: d.added,
      changed: d.changed,
      removed: d.removed,
    });
    if (d.deltaTokens) out.deltaTokens = d.deltaTokens;
    if (d.fullTokens) out.fullTokens = d.fullTokens;
    return out;
  };
  const decodeGenericDelta = (text, opts = undefined) =>
    delta(JSON.parse(withLimits(E, opts, () => call(() => decodeText(text, (s) => E.genericDecodeDelta(s))))), true);
  const diffGenericSets = (base, next) => delta(JSON.parse(callValue(() => E.genericDiff(setJSON(base), setJSON(next)))), false);
  const verifyGenericDelta = (base, d, expectedNewRoot) =>
    JSON.parse(callValue(() => E.genericVerifyDelta(setJSON(base), setJSON(d), String(expectedNewRoot))));

  const ReanchorMode = Object.freeze({ FixedN: 0, SizeGuard: 1, 0: 'FixedN', 1: 'SizeGuard' });
  const DEFAULT_REANCHOR_N = 15;
  const fixedN = (n) => ({ mode: ReanchorMode.FixedN, n: n > 0 ? n : DEFAULT_REANCHOR_N });
  const sizeGuard = () => ({ mode: ReanchorMode.SizeGuard, n: 0 });

  // The engine's (mode, n) for a policy, read as 2.5.2's arithmetic reads it:
  // any mode but SizeGuard is a fixed cadence, re-anchoring on the turns
  // where `turn % n === 0` (n = '3' is 3; n = 2.5 is every fifth turn; NaN,
  // a missing n or an infinite one, never); n <= 0 is the default.
  const NEVER = Number.MAX_SAFE_INTEGER;
  function cadence(p) {
    if (p.mode === ReanchorMode.SizeGuard) return [ReanchorMode.SizeGuard, 0];
    const n = Number(p.n);
    if (n <= 0) return [ReanchorMode.FixedN, DEFAULT_REANCHOR_N];
    if (Number.isInteger(n)) return [ReanchorMode.FixedN, Math.min(n, NEVER)];
    for (let turn = 1; turn <= 1e6 && Number.isFinite(n); turn++) {
      if (turn % n === 0) return [ReanchorMode.FixedN, turn];
    }
    return [ReanchorMode.FixedN, NEVER];
  }

  /** The re-anchor cadence of a generic delta stream (spec §10a.8). */
  class GenericDeltaSession {
    constructor(base, tool, policy) {
      const [mode, n] = cadence(policy || fixedN(DEFAULT_REANCHOR_N));
      this._native = callValue(() => new E.NativeGenericDeltaSession(setJSON(base), tool == null ? '' : String(tool), mode, n));
    }
    currentFull() {
      return call(() => this._native.currentFull());
    }
    /** How many times `next` was called, failed calls included (the engine counts them). */
    turn() {
      return this._native.turn();
    }
    next(nextSet) {
      // A failed call counts too, as in 2.5.2: a set that cannot be sent
      // is counted here, one the engine refuses there.
      const out = callValue(() => {
        let json;
        try {
          json = setJSON(nextSet);
        } catch (e) {
          this._native.countRefusedTurn();
          throw e;
        }
        return this._native.next(json);
      });
      return { wire: out.slice(1), isFull: out[0] === 'F' };
    }
  }

  Object.assign(gcf, {
    Session,
    SessionDecoder,
    encodeWithSession,
    verifyDelta,
    packRoot,
    genericPackRoot,
    diffGenericSets,
    encodeGenericFull,
    encodeGenericDelta,
    decodeGenericFull,
    decodeGenericDelta,
    verifyGenericDelta,
    GenericDeltaSession,
    ReanchorMode,
    fixedN,
    sizeGuard,
    DEFAULT_REANCHOR_N,
  });
}
