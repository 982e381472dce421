// The examples behind the playground's buttons: JSON text as an agent's tool
// would return it, and the profile each one is meant for. The code graph holds
// only what the graph profile carries (no `signature`, which graph GCF does not
// transmit), so its savings compare the same information.

const codeGraph = {
  tool: 'find_references',
  tokenBudget: 4000,
  tokensUsed: 1312,
  symbols: [
    { qualifiedName: 'auth.Middleware', kind: 'function', score: 0.98, provenance: 'lsp_resolved', distance: 0 },
    { qualifiedName: 'auth.ValidateToken', kind: 'function', score: 0.91, provenance: 'lsp_resolved', distance: 1 },
    { qualifiedName: 'auth.Claims', kind: 'type', score: 0.87, provenance: 'lsp_resolved', distance: 1 },
    { qualifiedName: 'auth.(*Claims).Expired', kind: 'method', score: 0.74, provenance: 'lsp_resolved', distance: 2 },
    { qualifiedName: 'server.Routes', kind: 'function', score: 0.69, provenance: 'ast_inferred', distance: 1 },
    { qualifiedName: 'server.Config', kind: 'type', score: 0.52, provenance: 'ast_inferred', distance: 2 },
    { qualifiedName: 'keys.Rotate', kind: 'function', score: 0.47, provenance: 'ast_inferred', distance: 2 },
    { qualifiedName: 'keys.KeyStore', kind: 'interface', score: 0.41, provenance: 'ast_inferred', distance: 2 },
  ],
  edges: [
    { source: 'server.Routes', target: 'auth.Middleware', edgeType: 'calls' },
    { source: 'auth.Middleware', target: 'auth.ValidateToken', edgeType: 'calls' },
    { source: 'auth.ValidateToken', target: 'auth.Claims', edgeType: 'returns' },
    { source: 'auth.Middleware', target: 'auth.(*Claims).Expired', edgeType: 'calls' },
    { source: 'server.Routes', target: 'server.Config', edgeType: 'references' },
    { source: 'auth.ValidateToken', target: 'keys.KeyStore', edgeType: 'references' },
    { source: 'keys.Rotate', target: 'keys.KeyStore', edgeType: 'references' },
  ],
};

const records = {
  orders: [
    { id: 1042, status: 'shipped', total: 129.9, currency: 'EUR', customer: { name: 'Ada Lovelace', tier: 'gold' }, items: 3 },
    { id: 1043, status: 'pending', total: 18.5, currency: 'EUR', customer: { name: 'Alan Turing', tier: 'silver' }, items: 1 },
    { id: 1044, status: 'shipped', total: 342, currency: 'EUR', customer: { name: 'Grace Hopper', tier: 'gold' }, items: 7 },
    { id: 1045, status: 'cancelled', total: 54.25, currency: 'EUR', customer: { name: 'Edsger Dijkstra', tier: 'bronze' }, items: 2 },
    { id: 1046, status: 'shipped', total: 76, currency: 'EUR', customer: { name: 'Barbara Liskov', tier: 'silver' }, items: 4 },
    { id: 1047, status: 'pending', total: 9.99, currency: 'EUR', customer: { name: 'Donald Knuth', tier: 'gold' }, items: 1 },
  ],
  page: { next: 'cursor_8f2a', size: 6 },
};

const keyedMap = {
  services: {
    'api-gateway': { region: 'eu-west-1', replicas: 6, healthy: true, p99Ms: 41, version: '2.14.0' },
    'auth': { region: 'eu-west-1', replicas: 3, healthy: true, p99Ms: 12, version: '1.9.3' },
    'billing': { region: 'eu-west-1', replicas: 2, healthy: false, p99Ms: 880, version: '3.0.1' },
    'search': { region: 'eu-west-1', replicas: 4, healthy: true, p99Ms: 95, version: '5.2.0' },
    'notifications': { region: 'eu-west-1', replicas: 2, healthy: true, p99Ms: 33, version: '0.8.7' },
  },
  checkedAt: '2026-11-24T01:00:00Z',
};

export const EXAMPLES = {
  graph: { label: 'Code graph', profile: 'graph', text: JSON.stringify(codeGraph, null, 2) },
  records: { label: 'Records', profile: 'generic', text: JSON.stringify(records, null, 2) },
  keyed: { label: 'Keyed map', profile: 'generic', text: JSON.stringify(keyedMap, null, 2) },
};
