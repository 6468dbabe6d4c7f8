//===- Tensors.cpp - random inputs and output comparison for engines ------===//

#include "int21/Runtime/Tensors.h"

#include <cmath>
#include <cstring>

using namespace int21::runtime;

/// Element `i` of `t` as a double (16-bit floats decoded).
double int21::runtime::elementAt(const Tensor &t, int64_t i) {
  const char *p = static_cast<const char *>(t.data());
  auto load = [&](auto v) {
    std::memcpy(&v, p + i * sizeof(v), sizeof(v));
    return v;
  };
  switch (t.dtype()) {
  case DType::F32:
    return load(float());
  case DType::F64:
    return load(double());
  case DType::F16: {
    uint16_t h = load(uint16_t());
    int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (exp == 0)
      return sign * std::ldexp(mant, -24);
    if (exp == 31)
      return mant ? NAN : sign * INFINITY;
    return sign * std::ldexp(mant + 1024, exp - 25);
  }
  case DType::BF16: {
    uint32_t bits = uint32_t(load(uint16_t())) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  case DType::Bool:
  case DType::U8:
    return load(uint8_t());
  case DType::I8:
    return load(int8_t());
  case DType::I16:
    return load(int16_t());
  case DType::U16:
    return load(uint16_t());
  case DType::I32:
    return load(int32_t());
  case DType::U32:
    return load(uint32_t());
  case DType::I64:
    return static_cast<double>(load(int64_t()));
  case DType::U64:
    return static_cast<double>(load(uint64_t()));
  }
  return 0;
}

bool int21::runtime::isFloatType(DType t) {
  return t == DType::F16 || t == DType::BF16 || t == DType::F32 ||
         t == DType::F64;
}

Tensor int21::runtime::randomTensor(const TensorSpec &spec, std::mt19937_64 &rng) {
  Tensor t(spec.dtype, spec.shape);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  // Integers in [0, 9], or fewer where a node indexes with them (the
  // bounds hold 0: they are [-d, d - 1]).
  int64_t top = 9;
  for (const IndexBounds &b : spec.indexBounds)
    top = std::max<int64_t>(0, std::min(top, b.max));
  std::uniform_int_distribution<int> integer(0, static_cast<int>(top));
  char *p = static_cast<char *>(t.data());
  size_t size = dtypeSize(spec.dtype);
  for (int64_t i = 0, n = t.numElements(); i < n; ++i) {
    switch (spec.dtype) {
    case DType::F32: {
      float f = static_cast<float>(real(rng));
      std::memcpy(p + i * size, &f, size);
      break;
    }
    case DType::F64: {
      double d = real(rng);
      std::memcpy(p + i * size, &d, size);
      break;
    }
    case DType::F16:
    case DType::BF16: {
      // Values in [-1, 1) with few mantissa bits, exact in both formats.
      float f = static_cast<float>(std::round(real(rng) * 64) / 64);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      uint16_t h;
      if (spec.dtype == DType::BF16) {
        h = bits >> 16;
      } else {
        int exp = int((bits >> 23) & 0xff) - 127 + 15;
        h = (bits >> 16) & 0x8000;
        if (f != 0 && exp > 0)
          h |= (exp << 10) | ((bits >> 13) & 0x3ff);
      }
      std::memcpy(p + i * size, &h, size);
      break;
    }
    case DType::Bool: {
      uint8_t b = integer(rng) & 1;
      std::memcpy(p + i * size, &b, size);
      break;
    }
    default: {
      uint64_t v = integer(rng);
      std::memcpy(p + i * size, &v, size);
      break;
    }
    }
  }
  return t;
}

Comparison int21::runtime::compareTensors(const Tensor &got, const Tensor &want,
                                          double rtol, double atol) {
  Comparison result;
  double diff2 = 0, ref2 = 0;
  bool exact = !isFloatType(got.dtype());
  for (int64_t i = 0, n = got.numElements(); i < n; ++i) {
    double a = elementAt(got, i), b = elementAt(want, i);
    if (std::isnan(a) && std::isnan(b))
      continue;
    if (std::isinf(b) && a == b)
      continue;
    double d = std::fabs(a - b);
    if (std::isnan(d))
      d = INFINITY;
    diff2 += d * d;
    ref2 += b * b;
    result.maxAbs = std::max(result.maxAbs, d);
    if (exact ? d != 0 : !(d <= atol + rtol * std::fabs(b))) {
      if (!result.bad++)
        result.firstBad = i;
    }
  }
  result.relL2 = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  return result;
}
