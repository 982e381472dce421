# workerd's configuration for the Worker test (runtimes.test.mjs): one
# Worker whose modules are the package's files as a bundler would upload
# them, and one HTTP socket (its address is given on the command line:
# workerd serve worker.capnp --socket-addr http=127.0.0.1:PORT).
# Module names mirror the repository's paths so the files' own relative
# imports resolve unchanged.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "gcf", worker = .gcfWorker)],
  sockets = [(name = "http", address = "127.0.0.1:8787", http = (), service = "gcf")],
);

const gcfWorker :Workerd.Worker = (
  modules = [
    # The main module: what a Worker's own source starts with (see worker.mjs).
    (name = "bindings-wasm/test/runtimes/main.mjs", esModule = "import wasm from '../../package/wasm/web/gcf_wasm_bg.wasm';\nimport { worker } from './worker.mjs';\nexport default worker(wasm);\n"),
    (name = "bindings-wasm/test/runtimes/worker.mjs", esModule = embed "worker.mjs"),
    (name = "bindings-wasm/test/runtimes/smoke.mjs", esModule = embed "smoke.mjs"),
    (name = "bindings-wasm/test/browser/conformance.mjs", esModule = embed "../browser/conformance.mjs"),
    (name = "bindings-wasm/package/manual.mjs", esModule = embed "../../package/manual.mjs"),
    (name = "bindings-wasm/package/layer.mjs", esModule = embed "../../package/layer.mjs"),
    (name = "bindings-wasm/package/fastargs.mjs", esModule = embed "../../package/fastargs.mjs"),
    (name = "bindings-wasm/package/wasm/web/gcf_wasm.js", esModule = embed "../../package/wasm/web/gcf_wasm.js"),
    (name = "bindings-wasm/package/wasm/web/gcf_wasm_bg.wasm", wasm = embed "../../package/wasm/web/gcf_wasm_bg.wasm"),
  ],
  compatibilityDate = "2025-09-01",
);
