//===- Tensors.h - random inputs and output comparison for engines --------===//
//
// What a tool needs around Engine::run: random inputs of an engine's input
// specs, elements read back as doubles, and outputs compared with expected
// ones under a tolerance. Shared by int21-run and the schedule search's
// correctness gate.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_RUNTIME_TENSORS_H
#define INT21_RUNTIME_TENSORS_H

#include "int21/Runtime/Engine.h"

#include <cstdint>
#include <random>

namespace int21::runtime {

/// Whether `type` is a floating-point type.
bool isFloatType(DType type);

/// Element `i` of `t` as a double (16-bit floats decoded).
double elementAt(const Tensor &t, int64_t i);

/// A tensor of `spec`'s type and shape with random values: floats uniform in
/// [-1, 1) (16-bit ones with few mantissa bits, exact in both formats),
/// integers in [0, 10), bools 0 or 1.
Tensor randomTensor(const TensorSpec &spec, std::mt19937_64 &rng);

/// How far `got` is from `want` (same dtype and shape). Floats pass when
/// |got - want| <= atol + rtol * |want| (NaN matches NaN, an infinity
/// itself); other types must be equal.
struct Comparison {
  double relL2 = 0;
  double maxAbs = 0;
  /// Elements beyond the tolerance, and the first of them.
  int64_t bad = 0;
  int64_t firstBad = -1;
};
Comparison compareTensors(const Tensor &got, const Tensor &want, double rtol,
                          double atol);

} // namespace int21::runtime

#endif // INT21_RUNTIME_TENSORS_H
