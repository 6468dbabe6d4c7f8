//===- int21-run.cpp - run or benchmark an int21 engine -------------------===//
//
//   int21-run ENGINE [--input NAME=FILE.pb]... [--output-dir DIR]
//             [--expect DIR] [--rtol R] [--atol A] [--bench N] [--threads T]
//   int21-run ENGINE --print-plan
//   int21-run --list-devices
//
// Inputs come from ONNX TensorProto files; those not given are random
// (floats uniform in [-1, 1), integers in [0, 10), bools 0/1; --seed).
// Outputs are written in the ONNX test layout (output_K.pb), compared with
// expected ones (one line per output, exit 1 beyond the tolerance), or timed.
//
//===----------------------------------------------------------------------===//

#include "int21/Runtime/Cuda.h"
#include "int21/Runtime/Engine.h"
#include "int21/Runtime/GPUPlan.h"
#include "int21/Runtime/TensorProto.h"
#include "int21/Runtime/Tensors.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>

using namespace llvm;
using namespace int21;
using namespace int21::runtime;

static const char kUsage[] =
    "USAGE: int21-run ENGINE [options]\n"
    "\n"
    "Runs an int21 engine on inputs from ONNX TensorProto files (random\n"
    "inputs for those not given: floats in [-1, 1), integers in [0, 10)).\n"
    "A UINT16 TensorProto is read as the bfloat16 that ONNX test data stores\n"
    "that way where the engine expects bfloat16.\n"
    "\n"
    "  --input NAME=FILE.pb  an input (repeatable)\n"
    "  --input-shape NAME=DIMS\n"
    "                        the shape of a random input with dynamic\n"
    "                        dimensions, e.g. x=8x3x224x224 (repeatable)\n"
    "  --output-dir DIR      write output_K.pb in output order\n"
    "  --expect DIR          compare with DIR/output_K.pb; exit 1 beyond the\n"
    "                        tolerance |got - want| <= atol + rtol * |want|\n"
    "  --rtol R              relative tolerance (default 1e-3)\n"
    "  --atol A              absolute tolerance (default 1e-7)\n"
    "  --bench N             warm up, time N runs, print latency_ms (and the\n"
    "                        threads a CPU engine ran on)\n"
    "  --threads T           threads to run on (default: physical cores)\n"
    "  --seed S              seed of the random inputs (default 21)\n"
    "  --load-time           print the time to load the engine (load_ms=...)\n"
    "                        and exit without running it\n"
    "  --print-plan          print a GPU engine's metadata and plan after\n"
    "                        checking them (no GPU needed); --print-plan-json\n"
    "                        prints the plan as the engine stores it\n"
    "  --list-devices        list the CUDA GPUs and exit\n"
    "\n"
    "GPU engines (target sm_XY) run on CUDA device 0 through the driver\n"
    "(libcuda.so.1); --bench then also prints device_ms, the device time of\n"
    "the engine's steps without the copies in and out.\n";

static int fail(const Twine &message) {
  errs() << "int21-run: error: " << message << "\n";
  return 1;
}

static std::string median(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  double mid = times.size() % 2 ? times[times.size() / 2]
                                : (times[times.size() / 2 - 1] +
                                   times[times.size() / 2]) /
                                      2;
  std::string out;
  raw_string_ostream os(out);
  os << "median=" << format("%.3f", mid)
     << " min=" << format("%.3f", times.front())
     << " max=" << format("%.3f", times.back()) << " runs=" << times.size();
  return out;
}

/// --list-devices: one line per CUDA device.
static int listDevices() {
  Expected<std::vector<CudaDevice>> devices = listCudaDevices();
  if (!devices) {
    errs() << "int21-run: error: " << toString(devices.takeError()) << "\n";
    return 1;
  }
  for (const CudaDevice &device : *devices)
    outs() << "device " << device.ordinal << ": " << device.name << ", "
           << device.chip << ", " << device.multiprocessors << " SMs, "
           << format("%.1f", device.memoryBytes / double(1ull << 30))
           << " GiB\n";
  return 0;
}

/// --print-plan: the engine's metadata and, for a GPU engine, its plan.
static int printPlan(StringRef path, bool json) {
  Expected<EngineFile> file = EngineFile::open(path);
  if (!file) {
    errs() << "int21-run: error: " << toString(file.takeError()) << "\n";
    return 1;
  }
  const EngineMetadata &meta = file->metadata();
  if (!isGPUTarget(meta.target)) {
    errs() << "int21-run: error: " << path << ": engine for '" << meta.target
           << "' has no GPU plan\n";
    return 1;
  }
  Expected<GPUPlan> plan = readGPUPlan(*file, path);
  if (!plan) {
    errs() << "int21-run: error: " << toString(plan.takeError()) << "\n";
    return 1;
  }
  auto specs = [](ArrayRef<TensorSpec> list) {
    std::string out;
    for (const TensorSpec &spec : list) {
      std::string shape;
      for (auto [i, d] : llvm::enumerate(spec.shape))
        shape += (i ? "x" : "") + std::to_string(d);
      out += " " + spec.name + ":" + dtypeName(spec.dtype).str() + "[" +
             shape + "]";
    }
    return out;
  };
  outs() << "target: " << meta.target << "\n";
  outs() << "inputs:" << specs(meta.inputs) << "\n";
  outs() << "outputs:" << specs(meta.outputs) << "\n";
  if (!meta.checks.empty())
    outs() << "index checks:" << specs(meta.checks) << "\n";
  outs() << "weights:";
  for (const WeightSpec &weight : meta.weights)
    outs() << " " << weight.name << "@" << weight.offset << "+" << weight.size;
  outs() << "\n";
  outs() << "workspace: " << meta.workspaceSize << "\n";
  outs() << "code:";
  for (const Section &section : file->sections())
    if (section.kind == SectionKind::Code)
      outs() << " " << section.name << "(" << section.data.size() << ")";
  outs() << "\n";
  if (json)
    outs() << gpuPlanToString(*plan, /*pretty=*/true) << "\n";
  else
    printGPUPlan(*plan, outs());
  return 0;
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s;
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "x" : "") + (d == TensorSpec::kDynamicExtent
                               ? std::string("?")
                               : std::to_string(d));
  return "[" + s + "]";
}

/// ONNX 1.12's test data stores bfloat16 tensors as UINT16 ones (the same
/// bits): such a tensor is taken as the bfloat16 it stands for.
static Tensor asBFloat16IfStored(Tensor tensor, DType wanted) {
  if (wanted != DType::BF16 || tensor.dtype() != DType::U16)
    return tensor;
  Tensor bf16(DType::BF16, tensor.shape());
  std::memcpy(bf16.data(), tensor.data(), tensor.sizeInBytes());
  return bf16;
}

/// The code a run on inputs of `shapes` takes: "specialised" (for the
/// shapes it was compiled for) or "generic".
static std::string codeText(const Engine &engine,
                            ArrayRef<std::vector<int64_t>> shapes) {
  int special = engine.specializationFor(shapes);
  return special < 0 ? std::string("generic")
                     : "specialised(" + std::to_string(special) + ")";
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // Parsed by hand: libLLVM registers global options of its own (one of them
  // named "threads") that this tool must neither clash with nor show.
  std::string enginePath, outputDir, expectDir;
  std::vector<std::string> inputs, inputShapes;
  double rtol = 1e-3, atol = 1e-7;
  unsigned bench = 0, threads = 0;
  uint64_t seed = 21;
  bool loadTime = false, showPlan = false, planJSON = false;
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (arg == "-h" || arg == "--help" || arg == "-help") {
      outs() << kUsage;
      return 0;
    }
    if (arg == "--load-time") {
      loadTime = true;
      continue;
    }
    if (arg == "--list-devices")
      return listDevices();
    if (arg == "--print-plan" || arg == "--print-plan-json") {
      showPlan = true;
      planJSON = arg == "--print-plan-json";
      continue;
    }
    if (!arg.starts_with("-")) {
      if (!enginePath.empty())
        return fail("more than one engine given ('" + enginePath + "', '" +
                    arg + "')");
      enginePath = arg.str();
      continue;
    }
    StringRef name = arg.ltrim('-'), value;
    bool hasValue = name.contains('=');
    if (hasValue)
      std::tie(name, value) = name.split('=');
    static const char *const kNames[] = {
        "input", "input-shape", "output-dir", "expect", "rtol",
        "atol",  "bench",       "threads",    "seed"};
    if (!llvm::is_contained(kNames, name))
      return fail("unknown option '" + arg + "' (see --help)");
    if (!hasValue) {
      if (i + 1 >= argc)
        return fail("option '--" + name + "' needs a value");
      value = argv[++i];
    }
    auto number = [&](auto &out) -> bool {
      double parsed;
      if (value.getAsDouble(parsed) || parsed < 0)
        return false;
      out = static_cast<std::decay_t<decltype(out)>>(parsed);
      return true;
    };
    bool ok = true;
    if (name == "input")
      inputs.push_back(value.str());
    else if (name == "input-shape")
      inputShapes.push_back(value.str());
    else if (name == "output-dir")
      outputDir = value.str();
    else if (name == "expect")
      expectDir = value.str();
    else if (name == "rtol")
      ok = number(rtol);
    else if (name == "atol")
      ok = number(atol);
    else if (name == "bench")
      ok = number(bench);
    else if (name == "threads")
      ok = number(threads);
    else if (name == "seed")
      ok = number(seed);
    if (!ok)
      return fail("option '--" + name + "' needs a non-negative number, not '" +
                  value + "'");
  }
  if (enginePath.empty())
    return fail("no engine given (see --help)");
  if (showPlan)
    return printPlan(enginePath, planJSON);

  auto loadStart = std::chrono::steady_clock::now();
  Expected<std::unique_ptr<Engine>> loaded = Engine::load(enginePath);
  auto loadEnd = std::chrono::steady_clock::now();
  if (!loaded)
    return fail(toString(loaded.takeError()));
  if (loadTime) {
    outs() << "load_ms="
           << format("%.3f", std::chrono::duration<double, std::milli>(
                                 loadEnd - loadStart)
                                 .count())
           << "\n";
    return 0;
  }
  Engine &engine = **loaded;
  if (threads)
    engine.setThreads(threads);

  // Inputs: given files by name, random for the rest.
  StringMap<std::string> files;
  for (const std::string &spec : inputs) {
    auto [name, file] = StringRef(spec).split('=');
    if (file.empty())
      return fail("--input '" + spec + "' must look like NAME=FILE.pb");
    bool known = llvm::any_of(engine.inputs(), [&](const TensorSpec &s) {
      return s.name == name;
    });
    if (!known)
      return fail("--input: the engine has no input named '" + name + "'");
    files[name] = file.str();
  }
  StringMap<std::vector<int64_t>> shapes;
  for (const std::string &spec : inputShapes) {
    auto [name, dims] = StringRef(spec).split('=');
    auto it = llvm::find_if(engine.inputs(), [&](const TensorSpec &s) {
      return s.name == name;
    });
    if (it == engine.inputs().end())
      return fail("--input-shape: the engine has no input named '" + name +
                  "'");
    SmallVector<StringRef> parts;
    dims.split(parts, 'x');
    std::vector<int64_t> shape;
    for (StringRef part : parts) {
      int64_t d;
      if (part.getAsInteger(10, d) || d < 0)
        return fail("--input-shape '" + spec +
                    "' must look like NAME=DIMS, e.g. x=1x3x224x224");
      shape.push_back(d);
    }
    if (dims.empty())
      shape.clear();
    if (shape.size() != it->shape.size())
      return fail("--input-shape gives input '" + name + "' " +
                  Twine(shape.size()) + " dimensions, but it has " +
                  Twine(it->shape.size()) + " " + shapeString(it->shape));
    shapes[name] = std::move(shape);
  }
  std::mt19937_64 rng(seed);
  std::vector<Tensor> feeds;
  for (const TensorSpec &spec : engine.inputs()) {
    auto it = files.find(spec.name);
    if (it == files.end()) {
      TensorSpec random = spec;
      auto given = shapes.find(spec.name);
      if (given != shapes.end())
        random.shape = given->second;
      else if (spec.isDynamic())
        return fail("input '" + spec.name + "' has dynamic dimensions " +
                    shapeString(spec.shape) + ": give its shape with "
                    "--input-shape " + spec.name + "=DIMS, or its data with "
                    "--input " + spec.name + "=FILE.pb");
      feeds.push_back(randomTensor(random, rng));
      continue;
    }
    Expected<NamedTensor> read = readTensorProto(it->second);
    if (!read)
      return fail(toString(read.takeError()));
    read->tensor = asBFloat16IfStored(std::move(read->tensor), spec.dtype);
    // The engine checks a dynamic input's extents.
    if (read->tensor.dtype() != spec.dtype ||
        (!spec.isDynamic() && read->tensor.shape() != spec.shape))
      return fail(it->second + ": input '" + spec.name + "' must be " +
                  dtypeName(spec.dtype) + shapeString(spec.shape) + ", not " +
                  dtypeName(read->tensor.dtype()) +
                  shapeString(read->tensor.shape()));
    feeds.push_back(std::move(read->tensor));
  }

  Expected<std::vector<Tensor>> results = engine.run(feeds);
  if (!results)
    return fail(toString(results.takeError()));

  int status = 0;
  if (!outputDir.empty()) {
    if (std::error_code ec = sys::fs::create_directories(outputDir))
      return fail(outputDir + ": cannot create: " + ec.message());
    for (auto [k, tensor] : llvm::enumerate(*results)) {
      SmallString<128> path(outputDir);
      sys::path::append(path, "output_" + std::to_string(k) + ".pb");
      if (Error error =
              writeTensorProto(path, engine.outputs()[k].name, tensor))
        return fail(toString(std::move(error)));
    }
  }

  if (!expectDir.empty()) {
    for (auto [k, tensor] : llvm::enumerate(*results)) {
      const TensorSpec &spec = engine.outputs()[k];
      SmallString<128> path(expectDir);
      sys::path::append(path, "output_" + std::to_string(k) + ".pb");
      Expected<NamedTensor> expected = readTensorProto(path);
      if (!expected)
        return fail(toString(expected.takeError()));
      const Tensor want =
          asBFloat16IfStored(std::move(expected->tensor), tensor.dtype());
      if (want.dtype() != tensor.dtype() || want.shape() != tensor.shape()) {
        outs() << "output " << spec.name << ": expected "
               << dtypeName(want.dtype()) << shapeString(want.shape())
               << ", got " << dtypeName(tensor.dtype())
               << shapeString(tensor.shape()) << "\n";
        status = 1;
        continue;
      }
      Comparison cmp = compareTensors(tensor, want, rtol, atol);
      double relL2 = cmp.relL2, maxAbs = cmp.maxAbs;
      int64_t bad = cmp.bad;
      outs() << "output " << spec.name << ": rel_l2="
             << format("%.3e", relL2) << " max_abs=" << format("%.3e", maxAbs);
      if (bad) {
        outs() << " (" << bad << " of " << tensor.numElements()
               << " elements beyond rtol=" << format("%g", rtol)
               << " atol=" << format("%g", atol) << ")";
        status = 1;
      }
      outs() << "\n";
    }
  }

  if (bench) {
    // Warm-up: a tenth of the runs, at least two.
    unsigned warmups = std::max(2u, bench / 10);
    for (unsigned i = 0; i < warmups; ++i)
      if (Error error = engine.run(feeds).takeError())
        return fail(toString(std::move(error)));
    std::vector<const void *> in;
    std::vector<std::vector<int64_t>> feedShapes;
    for (const Tensor &t : feeds) {
      in.push_back(t.data());
      feedShapes.push_back(t.shape());
    }
    std::vector<void *> out;
    for (Tensor &t : *results)
      out.push_back(t.data());
    std::vector<double> times, deviceTimes;
    for (unsigned i = 0; i < bench; ++i) {
      auto start = std::chrono::steady_clock::now();
      Expected<double> ms = engine.runTimed(in, feedShapes, out);
      if (!ms)
        return fail(toString(ms.takeError()));
      auto end = std::chrono::steady_clock::now();
      times.push_back(std::chrono::duration<double, std::milli>(end - start)
                          .count());
      deviceTimes.push_back(*ms);
    }
    outs() << "latency_ms " << median(times);
    if (!engine.onGpu())
      outs() << " threads=" << engine.threads();
    if (!engine.metadata().specializations.empty())
      outs() << " code=" << codeText(engine, feedShapes);
    outs() << "\n";
    if (engine.onGpu())
      outs() << "device_ms " << median(deviceTimes) << " on "
             << engine.deviceDescription() << "\n";
  }

  if (outputDir.empty() && expectDir.empty() && !bench) {
    // The shapes a dynamic engine ran on.
    if (engine.isDynamic()) {
      std::vector<std::vector<int64_t>> feedShapes;
      for (auto [spec, tensor] : llvm::zip(engine.inputs(), feeds)) {
        outs() << "input " << spec.name << ": " << dtypeName(tensor.dtype())
               << shapeString(tensor.shape()) << "\n";
        feedShapes.push_back(tensor.shape());
      }
      if (!engine.metadata().specializations.empty())
        outs() << "code: " << codeText(engine, feedShapes) << "\n";
    }
    for (auto [k, tensor] : llvm::enumerate(*results)) {
      double lo = INFINITY, hi = -INFINITY, sum = 0;
      int64_t n = tensor.numElements();
      for (int64_t i = 0; i < n; ++i) {
        double v = elementAt(tensor, i);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        sum += v;
      }
      outs() << "output " << engine.outputs()[k].name << ": "
             << dtypeName(tensor.dtype()) << shapeString(tensor.shape());
      if (n)
        outs() << " min=" << format("%.6g", lo) << " max=" << format("%.6g", hi)
               << " mean=" << format("%.6g", sum / n);
      outs() << "\n";
    }
  }
  return status;
}
