#!/usr/bin/env node
// Runs one ONNX model with ONNX Runtime (onnxruntime-node) for bench/compare.py: creates the
// session (timed as "prepare"), warms up, times each run, writes the outputs as .npy and the
// figures as JSON. One process per round, like the other engines' runners.
//
//   node bench/ort_runner.js --model M.onnx --inputs DIR --threads N --warmup W --iters I \
//                            --outputs DIR --json FILE [--spinning 0|1]
// DIR holds one NAME.npy per model input (fed as NAME, a "/" in it written %2F). Install the engine next to this file:
//   npm install --ignore-scripts --no-save --prefix bench onnxruntime-node@1.30.0
'use strict';
const fs = require('fs');
const path = require('path');

function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || i + 1 >= argv.length) throw new Error(`bad argument '${argv[i]}'`);
    args[argv[i].slice(2)] = argv[i + 1];
  }
  for (const k of ['model', 'inputs', 'threads', 'warmup', 'iters', 'outputs', 'json'])
    if (!(k in args)) throw new Error(`missing --${k}`);
  return args;
}

// The .npy dtypes the benchmark models use, as ONNX Runtime tensor types.
const NPY_TYPES = {
  '<f4': ['float32', Float32Array],
  '<f8': ['float64', Float64Array],
  '<i4': ['int32', Int32Array],
  '<i8': ['int64', BigInt64Array],
  '|b1': ['bool', Uint8Array],
  '|u1': ['uint8', Uint8Array],
};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${file}: Fortran order`);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').filter((s) => s.trim()).map(Number);
  if (!(descr in NPY_TYPES)) throw new Error(`${file}: dtype ${descr} not handled`);
  const [type, Arr] = NPY_TYPES[descr];
  const count = shape.reduce((a, b) => a * b, 1);
  // Copy into a fresh, aligned buffer: the header length need not be a multiple of 8.
  const data = new Arr(count);
  buf.copy(Buffer.from(data.buffer), 0, start + headerLen, start + headerLen + count * Arr.BYTES_PER_ELEMENT);
  return { type, shape, data };
}

function writeNpy(file, tensor) {
  const descr = Object.keys(NPY_TYPES).find((k) => NPY_TYPES[k][0] === tensor.type);
  if (!descr) throw new Error(`output type ${tensor.type} not handled`);
  const dims = tensor.dims.length === 1 ? `${tensor.dims[0]},` : tensor.dims.join(', ');
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  header += ' '.repeat(64 - ((10 + header.length + 1) % 64)) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const d = tensor.data;
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), Buffer.from(d.buffer, d.byteOffset, d.byteLength)]));
}

function rssKiB() {
  const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) : null;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  let ort;
  try {
    ort = require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));
  } catch (e) {
    console.error('ort_runner: onnxruntime-node is not installed; run:\n' +
      '  npm install --ignore-scripts --no-save --prefix bench onnxruntime-node@1.30.0');
    process.exit(3);
  }
  const rssStart = rssKiB();
  const feeds = {};
  for (const f of fs.readdirSync(args.inputs).filter((f) => f.endsWith('.npy'))) {
    const t = readNpy(path.join(args.inputs, f));
    feeds[f.slice(0, -4).replace(/%2F/g, '/')] = new ort.Tensor(t.type, t.data, t.shape);  // '/' as %2F
  }
  const threads = Number(args.threads);
  const t0 = performance.now();
  const session = await ort.InferenceSession.create(args.model, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    // --spinning 0|1: whether idle intra-op threads spin (ONNX Runtime's default is 1).
    ...('spinning' in args ? { extra: { session: { intra_op: { allow_spinning: args.spinning } } } } : {}),
  });
  const prepareMs = performance.now() - t0;

  const time = async (n) => {
    const ms = [];
    let out = null;
    for (let i = 0; i < n; ++i) {
      const s = performance.now();
      out = await session.run(feeds);
      ms.push(performance.now() - s);
    }
    return [ms, out];
  };
  const [warmupMs] = await time(Number(args.warmup));
  const [iterationsMs, outputs] = await time(Number(args.iters));

  fs.mkdirSync(args.outputs, { recursive: true });
  // Output files as strata's --dump-outputs names them: '/' and ':' become '_'.
  for (const name of session.outputNames)
    writeNpy(path.join(args.outputs, `${name.replace(/[/:]/g, '_')}.npy`), outputs[name]);
  const version = require(path.join(__dirname, 'node_modules', 'onnxruntime-node', 'package.json')).version;
  fs.writeFileSync(args.json, JSON.stringify({
    engine: 'onnxruntime-node',
    version,
    threads,
    prepare_ms: prepareMs,
    warmup_ms: warmupMs,
    iterations_ms: iterationsMs,
    rss_start_kib: rssStart,
  }, null, 1));
}

main().catch((e) => {
  console.error(`ort_runner: ${e.message || e}`);
  process.exit(2);
});
