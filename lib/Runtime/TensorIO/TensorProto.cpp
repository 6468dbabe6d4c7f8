//===- TensorProto.cpp - ONNX TensorProto files <-> runtime tensors -------===//

#include "int21/Runtime/TensorProto.h"

#include "onnx/onnx_pb.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace llvm;
using int21::runtime::DType;
using int21::runtime::Tensor;

static Error fileError(StringRef path, const Twine &message) {
  return createStringError(inconvertibleErrorCode(), path + ": " + message);
}

namespace {
struct DTypeMapping {
  int onnx;
  DType dtype;
};
constexpr DTypeMapping kMappings[] = {
    {onnx::TensorProto::FLOAT, DType::F32},
    {onnx::TensorProto::UINT8, DType::U8},
    {onnx::TensorProto::INT8, DType::I8},
    {onnx::TensorProto::UINT16, DType::U16},
    {onnx::TensorProto::INT16, DType::I16},
    {onnx::TensorProto::INT32, DType::I32},
    {onnx::TensorProto::INT64, DType::I64},
    {onnx::TensorProto::BOOL, DType::Bool},
    {onnx::TensorProto::FLOAT16, DType::F16},
    {onnx::TensorProto::DOUBLE, DType::F64},
    {onnx::TensorProto::UINT32, DType::U32},
    {onnx::TensorProto::UINT64, DType::U64},
    {onnx::TensorProto::BFLOAT16, DType::BF16},
};
} // namespace

/// Copies the typed field `values` into `out`, converting each value to the
/// element type of `dtype` (ONNX stores small integer types in int32_data).
template <typename Field>
static bool copyTyped(const Field &values, DType dtype, Tensor &out) {
  if (static_cast<int64_t>(values.size()) != out.numElements())
    return false;
  char *dst = static_cast<char *>(out.data());
  size_t size = int21::runtime::dtypeSize(dtype);
  for (int i = 0; i < values.size(); ++i) {
    auto v = values.Get(i);
    switch (dtype) {
    case DType::F32: {
      float f = static_cast<float>(v);
      std::memcpy(dst + i * size, &f, size);
      break;
    }
    case DType::F64: {
      double d = static_cast<double>(v);
      std::memcpy(dst + i * size, &d, size);
      break;
    }
    default: {
      // Integers, bool and the 16-bit floats' bit patterns: little-endian
      // truncation of the stored integer.
      uint64_t bits = static_cast<uint64_t>(v);
      std::memcpy(dst + i * size, &bits, size);
      break;
    }
    }
  }
  return true;
}

Expected<int21::NamedTensor> int21::readTensorProto(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(
      path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fileError(path, "cannot read: " + buffer.getError().message());
  onnx::TensorProto proto;
  try {
    StringRef bytes = (*buffer)->getBuffer();
    if (bytes.size() > INT32_MAX ||
        !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
      return fileError(path, "not a serialised onnx.TensorProto");
  } catch (...) {
    return fileError(path, "not a serialised onnx.TensorProto");
  }
  std::optional<DType> dtype;
  for (const DTypeMapping &m : kMappings)
    if (m.onnx == proto.data_type())
      dtype = m.dtype;
  if (!dtype)
    return fileError(path, "tensor '" + proto.name() + "' has data type " +
                               Twine(proto.data_type()) +
                               ", which int21 does not support");
  if (proto.has_data_location() &&
      proto.data_location() == onnx::TensorProto::EXTERNAL)
    return fileError(path, "external tensor data is not supported");
  std::vector<int64_t> shape;
  int64_t count = 1;
  for (int64_t d : proto.dims()) {
    if (d < 0 || (d > 0 && count > (int64_t(1) << 40) / d))
      return fileError(path, "tensor '" + proto.name() +
                                 "' has an invalid shape");
    shape.push_back(d);
    count *= d;
  }
  NamedTensor result{proto.name(), Tensor(*dtype, shape)};
  Tensor &tensor = result.tensor;
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != tensor.sizeInBytes())
      return fileError(path, "tensor '" + proto.name() + "' has " +
                                 Twine(proto.raw_data().size()) +
                                 " bytes of data, its shape needs " +
                                 Twine(tensor.sizeInBytes()));
    std::memcpy(tensor.data(), proto.raw_data().data(), tensor.sizeInBytes());
    return result;
  }
  bool ok = false;
  switch (*dtype) {
  case DType::F32:
    ok = copyTyped(proto.float_data(), *dtype, tensor);
    break;
  case DType::F64:
    ok = copyTyped(proto.double_data(), *dtype, tensor);
    break;
  case DType::I64:
    ok = copyTyped(proto.int64_data(), *dtype, tensor);
    break;
  case DType::U32:
  case DType::U64:
    ok = copyTyped(proto.uint64_data(), *dtype, tensor);
    break;
  default:
    ok = copyTyped(proto.int32_data(), *dtype, tensor);
    break;
  }
  if (!ok)
    return fileError(path, "tensor '" + proto.name() +
                               "' has a different number of values than "
                               "its shape needs");
  return result;
}

Error int21::writeTensorProto(StringRef path, StringRef name,
                              const Tensor &tensor) {
  onnx::TensorProto proto;
  proto.set_name(name.str());
  for (const DTypeMapping &m : kMappings)
    if (m.dtype == tensor.dtype())
      proto.set_data_type(m.onnx);
  for (int64_t d : tensor.shape())
    proto.add_dims(d);
  proto.set_raw_data(tensor.data(), tensor.sizeInBytes());
  std::string bytes;
  try {
    if (!proto.SerializeToString(&bytes))
      return fileError(path, "cannot serialise tensor '" + name + "'");
  } catch (...) {
    return fileError(path, "cannot serialise tensor '" + name + "'");
  }
  std::error_code ec;
  raw_fd_ostream os(path, ec);
  if (ec)
    return fileError(path, "cannot write: " + ec.message());
  os << bytes;
  return Error::success();
}
