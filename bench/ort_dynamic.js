// Median latency of ONNX Runtime (CPU) on a model with dynamic inputs, random
// data of the shape SHAPE (env, e.g. 1x77x256) for every float input.
// Usage: SHAPE=AxBxC node ort_dynamic.js MODEL.onnx [threads=1] [runs=20]
const ort = require(process.env.ORT_NODE || 'onnxruntime-node');
const [model, threads = '1', runs = '20'] = process.argv.slice(2);
function rnd(type, dims) {
  const n = dims.reduce((a, b) => a * b, 1);
  if (type === 'int64') return new ort.Tensor('int64', BigInt64Array.from({length: n}, () => BigInt(Math.floor(Math.random() * 1000))), dims);
  return new ort.Tensor('float32', Float32Array.from({length: n}, () => Math.random() * 2 - 1), dims);
}
(async () => {
  const s = await ort.InferenceSession.create(model, {intraOpNumThreads: +threads, interOpNumThreads: 1, graphOptimizationLevel: 'all'});
  const feeds = {};
  for (const name of s.inputNames) {
    const meta = s.inputMetadata.find ? s.inputMetadata.find(m => m.name === name) : null;
    const dims = process.env.SHAPE ? process.env.SHAPE.split("x").map(Number) : (meta ? meta.shape : null);
    const type = meta ? meta.type : 'float32';
    feeds[name] = rnd(type, dims);
  }
  for (let i = 0; i < 3; i++) await s.run(feeds);
  const t = [];
  for (let i = 0; i < +runs; i++) { const a = process.hrtime.bigint(); await s.run(feeds); t.push(Number(process.hrtime.bigint() - a) / 1e6); }
  t.sort((a, b) => a - b);
  console.log(`${model.split('/').pop()} threads=${threads} median_ms=${t[t.length >> 1].toFixed(3)} min_ms=${t[0].toFixed(3)}`);
})();
