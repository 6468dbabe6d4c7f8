// ONNX Runtime's own profile of a model (CPU): runs it RUNS times on random
// inputs with profiling on and prints the profile file's path.
// Usage: node ort_profile.js MODEL.onnx THREADS RUNS PREFIX
const ort = require(process.env.ORT_NODE || 'onnxruntime-node');
const [model, threads = '1', runs = '20', prefix = '/tmp/ort_profile'] = process.argv.slice(2);
function rnd(type, dims) {
  const n = dims.reduce((a, b) => a * b, 1);
  if (type === 'int64') return new ort.Tensor('int64', BigInt64Array.from({length: n}, () => BigInt(Math.floor(Math.random() * 1000))), dims);
  return new ort.Tensor('float32', Float32Array.from({length: n}, () => Math.random() * 2 - 1), dims);
}
(async () => {
  const s = await ort.InferenceSession.create(model, {
    intraOpNumThreads: +threads, interOpNumThreads: 1, graphOptimizationLevel: 'all',
    enableProfiling: true, profileFilePrefix: prefix});
  const feeds = {};
  for (const name of s.inputNames) {
    const meta = s.inputMetadata.find(m => m.name === name);
    feeds[name] = rnd(meta ? meta.type : 'float32', meta.shape);
  }
  for (let i = 0; i < +runs; i++) await s.run(feeds);
  if (s.endProfiling) await s.endProfiling();
})();
