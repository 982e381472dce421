// The ESM entry's API (lib/api.cjs), loading the engine through
// createRequire of this module's URL rather than through the CommonJS files'
// require: an ESM bundle of a program (esbuild, tsup, rollup) keeps this call
// working, where it turns a CommonJS module's require of a Node module or a
// computed name into a stub that throws. The engine then comes from the
// node_modules the bundle runs beside, as a package's Node code does.
import { createRequire } from 'node:module';
import api from './api.cjs';

export default api.get(createRequire(import.meta.url));
