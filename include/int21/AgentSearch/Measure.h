//===- Measure.h - the correctness gate and the timer ---------------------===//
//
// What runs in the measurement child: a candidate engine and the reference
// engine of its kernel get the same fresh random inputs; the candidate's
// outputs must match within a dtype-aware tolerance before it is timed.
// Timing warms up, then repeats until the median is stable. Paired, the
// reference is timed too, in alternation with the candidate: a slow or fast
// spell of a shared machine then moves both alike, and their ratio holds.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_AGENTSEARCH_MEASURE_H
#define INT21_AGENTSEARCH_MEASURE_H

#include "int21/AgentSearch/Blackboard.h"
#include "int21/Runtime/Engine.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <utility>

namespace int21::search {

struct MeasureOptions {
  /// Threads the candidate runs on.
  unsigned threads = 1;
  /// Seed of the random inputs.
  uint64_t seed = 21;
  /// Time to spend on repetitions at most, after the warm-up.
  double seconds = 1.0;
  unsigned minReps = 5;
  unsigned maxReps = 1000;
  /// When the warm-up runs already take longer than this (0: never), the
  /// candidate cannot win: its warm-up time is reported without repeating.
  double giveUpMs = 0;
  /// Time the reference as well, alternating with the candidate, on the
  /// candidate's threads; `seconds` covers both.
  bool paired = false;
};

struct MeasureReport {
  bool correct = false;
  /// Which output and element differed, when not correct.
  std::string mismatch;
  double maxError = 0;
  Timing time;
  /// Paired: the reference's median over the same stretch of time (0 when
  /// not paired, or when the candidate gave up).
  double referenceMs = 0;
};

/// The tolerance (rtol, atol) for outputs of `dtype` whose reference values
/// reach magnitude `scale`: reassociated sums differ in the last bits, so
/// floats get a relative bound and an absolute one scaled to the outputs.
std::pair<double, double> toleranceFor(runtime::DType dtype, double scale);

/// Runs `reference` and `candidate` (engines with the same inputs and
/// outputs) on the same random inputs, compares, and times the candidate
/// when it is correct (paired: and the reference, in alternation).
llvm::Expected<MeasureReport> measureEngine(llvm::StringRef referencePath,
                                            llvm::StringRef candidatePath,
                                            const MeasureOptions &options);

llvm::json::Value toJSON(const MeasureReport &report);
bool fromJSON(const llvm::json::Value &value, MeasureReport &report,
              llvm::json::Path path);

/// The machine's peaks for the roofline bound, measured on `threads`
/// threads: fused multiply-adds per second and bytes read per second.
struct MachinePeaks {
  double flopsPerSecond = 0;
  double bytesPerSecond = 0;
};
MachinePeaks measurePeaks(unsigned threads);

/// The roofline bound of a kernel in milliseconds: its arithmetic at the
/// peak rate, or its traffic at the memory bandwidth when its data do not
/// fit in the caches.
double rooflineMs(const Kernel &kernel, const MachinePeaks &peaks);

} // namespace int21::search

#endif // INT21_AGENTSEARCH_MEASURE_H
