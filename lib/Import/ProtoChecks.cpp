//===- ProtoChecks.cpp - what libonnx reads, checked before it reads it ---===//
//
// libonnx's checker and shape inference trust parts of a model they read:
// the data of a tensor against its dims (onnx::ParseData reads past a
// raw_data that is too short) and the ranges of convolution and pooling
// attributes (a stride of 0 divides by zero in convPoolShapeInference).
// libonnx is inside int21's boundary, so those parts are checked here first,
// in every graph of the model (the subgraphs of If, Loop and Scan included),
// and a model that breaks one is refused with an error naming the tensor or
// the node and attribute.
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

#include <iterator>
#include <limits>
#include <optional>

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

namespace {
/// Bits an element of `dataType` takes in raw_data; none for the types whose
/// data is not fixed-size (strings) or that int21 does not know.
std::optional<int64_t> elementBits(int32_t dataType) {
  // Indexed by onnx::TensorProto::DataType: FLOAT, UINT8, INT8, UINT16,
  // INT16, INT32, INT64, STRING (no fixed size), BOOL, FLOAT16, DOUBLE,
  // UINT32, UINT64, COMPLEX64, COMPLEX128, BFLOAT16.
  static constexpr int64_t kBits[] = {0,  32, 8,  8,  16, 16, 32, 64, 0,
                                      8,  16, 64, 32, 64, 64, 128, 16};
  if (dataType <= 0 || dataType >= static_cast<int32_t>(std::size(kBits)) ||
      kBits[dataType] == 0)
    return std::nullopt;
  return kBits[dataType];
}

/// How many values of the typed field that holds `tensor`'s data it has,
/// per element (complex numbers take two); none when the type has no field.
std::optional<std::pair<int64_t, int64_t>>
typedValues(const onnx::TensorProto &tensor) {
  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT:
    return std::make_pair<int64_t, int64_t>(tensor.float_data_size(), 1);
  case onnx::TensorProto::COMPLEX64:
    return std::make_pair<int64_t, int64_t>(tensor.float_data_size(), 2);
  case onnx::TensorProto::DOUBLE:
    return std::make_pair<int64_t, int64_t>(tensor.double_data_size(), 1);
  case onnx::TensorProto::COMPLEX128:
    return std::make_pair<int64_t, int64_t>(tensor.double_data_size(), 2);
  case onnx::TensorProto::INT64:
    return std::make_pair<int64_t, int64_t>(tensor.int64_data_size(), 1);
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    return std::make_pair<int64_t, int64_t>(tensor.uint64_data_size(), 1);
  case onnx::TensorProto::STRING:
  case onnx::TensorProto::UNDEFINED:
    return std::nullopt;
  default:
    // int32_data holds the other fixed-size types.
    return std::make_pair<int64_t, int64_t>(tensor.int32_data_size(), 1);
  }
}

class ProtoChecker {
public:
  explicit ProtoChecker(llvm::function_ref<InFlightDiagnostic()> error)
      : error(error) {}

  LogicalResult checkGraph(const onnx::GraphProto &graph) {
    // libonnx's checker refuses a tensor output without a shape, but its
    // message names neither the output nor the graph.
    for (const onnx::ValueInfoProto &output : graph.output())
      if (output.type().has_tensor_type() &&
          !output.type().tensor_type().has_shape())
        return error() << "output '" << output.name() << "' of graph '"
                       << graph.name()
                       << "' has a tensor type without a shape: ONNX "
                          "requires one (an empty shape for a scalar, "
                          "dim_param for a size not known)",
               failure();
    for (const onnx::TensorProto &tensor : graph.initializer())
      if (failed(checkTensor(tensor)))
        return failure();
    for (const onnx::SparseTensorProto &sparse : graph.sparse_initializer())
      if (failed(checkTensor(sparse.values())) ||
          failed(checkTensor(sparse.indices())))
        return failure();
    for (int i = 0; i < graph.node_size(); ++i) {
      const onnx::NodeProto &node = graph.node(i);
      if (failed(checkNode(node, i)))
        return failure();
    }
    return success();
  }

private:
  LogicalResult checkTensor(const onnx::TensorProto &tensor) {
    if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
      return success(); // read by int21 alone, and checked when it is
    int64_t count = 1;
    for (int64_t dim : tensor.dims()) {
      if (dim < 0 ||
          (dim != 0 && count > std::numeric_limits<int64_t>::max() / dim))
        return error() << "tensor '" << tensor.name()
                       << "' has an invalid or absurd shape",
               failure();
      count *= dim;
    }
    std::optional<int64_t> bits = elementBits(tensor.data_type());
    if (!bits)
      return success();
    if (count > std::numeric_limits<int64_t>::max() / *bits)
      return error() << "tensor '" << tensor.name()
                     << "' has an invalid or absurd shape",
             failure();
    if (tensor.has_raw_data()) {
      int64_t expected = (count * *bits + 7) / 8;
      int64_t size = static_cast<int64_t>(tensor.raw_data().size());
      if (size != expected)
        return error() << "tensor '" << tensor.name() << "' holds " << size
                       << " bytes of data, expected " << expected
                       << " for " << count << " elements of type "
                       << onnxTypeName(tensor.data_type()),
               failure();
      return success();
    }
    std::optional<std::pair<int64_t, int64_t>> values = typedValues(tensor);
    if (values && values->first != count * values->second)
      return error() << "tensor '" << tensor.name() << "' holds "
                     << values->first << " values, expected "
                     << count * values->second << " for " << count
                     << " elements of type "
                     << onnxTypeName(tensor.data_type()),
             failure();
    return success();
  }

  LogicalResult checkNode(const onnx::NodeProto &node, int index) {
    if (node.op_type().empty())
      return error() << "node "
                     << (node.name().empty() ? "#" + std::to_string(index)
                                             : "'" + node.name() + "'")
                     << " has no op type",
             failure();
    std::string name =
        "'" + (node.name().empty() ? node.op_type() + "#" + std::to_string(index)
                                   : node.name()) +
        "' (" + node.op_type() + ")";
    StringRef op = node.op_type();
    bool convOrPool = op == "Conv" || op == "ConvTranspose" ||
                      op == "ConvInteger" || op == "QLinearConv" ||
                      op == "DeformConv" || op == "MaxPool" ||
                      op == "AveragePool" || op == "LpPool" ||
                      op == "MaxUnpool" || op == "MaxRoiPool";
    for (const onnx::AttributeProto &attr : node.attribute()) {
      // Tensors and graphs inside attributes (Constant's value, the bodies
      // of If, Loop and Scan) are read like the graph's own.
      if (attr.has_t() && failed(checkTensor(attr.t())))
        return failure();
      for (const onnx::TensorProto &tensor : attr.tensors())
        if (failed(checkTensor(tensor)))
          return failure();
      if (attr.has_sparse_tensor() &&
          (failed(checkTensor(attr.sparse_tensor().values())) ||
           failed(checkTensor(attr.sparse_tensor().indices()))))
        return failure();
      if (attr.has_g() && failed(checkGraph(attr.g())))
        return failure();
      for (const onnx::GraphProto &graph : attr.graphs())
        if (failed(checkGraph(graph)))
          return failure();
      if (!convOrPool)
        continue;
      StringRef attrName = attr.name();
      bool positive = attrName == "strides" || attrName == "dilations" ||
                      attrName == "kernel_shape" || attrName == "group" ||
                      attrName == "pooled_shape";
      bool nonNegative = attrName == "pads" || attrName == "output_padding";
      if (!positive && !nonNegative)
        continue;
      llvm::SmallVector<int64_t> ints(attr.ints().begin(), attr.ints().end());
      if (attr.has_i())
        ints.push_back(attr.i());
      for (int64_t value : ints)
        if (positive ? value <= 0 : value < 0)
          return error() << "node " << name << ": attribute '" << attrName
                         << "' must be " << (positive ? "positive" : "non-negative")
                         << ", got " << value,
                 failure();
    }
    return success();
  }

  llvm::function_ref<InFlightDiagnostic()> error;
};
} // namespace

LogicalResult int21::onnx_import::checkWhatLibonnxReads(
    const onnx::ModelProto &model,
    llvm::function_ref<InFlightDiagnostic()> error) {
  return ProtoChecker(error).checkGraph(model.graph());
}

namespace {
/// Gives each convolution of `graph` (and of its subgraphs) whose weight
/// shape the graph states, and which has no `kernel_shape`, the one ONNX
/// defines for it: the weight's spatial dimensions. A convolution whose
/// input and weight ranks the graph states must have them equal, and at
/// least 3: libonnx indexes the input's shape with the weight's rank.
LogicalResult
spellOutGraphKernelShapes(onnx::GraphProto &graph,
                          llvm::function_ref<InFlightDiagnostic()> error) {
  // Each value's dims as the graph states them, -1 for an unknown one.
  llvm::StringMap<llvm::SmallVector<int64_t>> shapes;
  for (const onnx::TensorProto &init : graph.initializer())
    shapes[init.name()].assign(init.dims().begin(), init.dims().end());
  auto note = [&](const onnx::ValueInfoProto &value) {
    if (!value.type().has_tensor_type() ||
        !value.type().tensor_type().has_shape())
      return;
    llvm::SmallVector<int64_t> dims;
    for (const onnx::TensorShapeProto::Dimension &dim :
         value.type().tensor_type().shape().dim())
      dims.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
    shapes.try_emplace(value.name(), std::move(dims));
  };
  for (const onnx::ValueInfoProto &value : graph.input())
    note(value);
  for (const onnx::ValueInfoProto &value : graph.value_info())
    note(value);
  for (onnx::NodeProto &node : *graph.mutable_node()) {
    for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
      if (attr.has_g() &&
          failed(spellOutGraphKernelShapes(*attr.mutable_g(), error)))
        return failure();
      for (onnx::GraphProto &sub : *attr.mutable_graphs())
        if (failed(spellOutGraphKernelShapes(sub, error)))
          return failure();
    }
    StringRef op = node.op_type();
    int weight = op == "QLinearConv" ? 3
                 : (op == "Conv" || op == "ConvInteger" || op == "ConvTranspose")
                     ? 1
                     : -1;
    if (weight < 0 || node.input_size() <= weight)
      continue;
    auto weightShape = shapes.find(node.input(weight));
    auto inputShape = shapes.find(node.input(0));
    std::string name =
        "'" + (node.name().empty() ? node.op_type() : node.name()) + "' (" +
        node.op_type() + ")";
    if (inputShape != shapes.end() && inputShape->second.size() < 3)
      return error() << "node " << name << ": input '" << node.input(0)
                     << "' has rank " << inputShape->second.size()
                     << ", a convolution needs at least 3 (N, C and a "
                        "spatial dimension)",
             failure();
    if (weightShape == shapes.end())
      continue;
    if (inputShape != shapes.end() &&
        inputShape->second.size() != weightShape->second.size())
      return error() << "node " << name << ": input '" << node.input(0)
                     << "' has rank " << inputShape->second.size()
                     << " and weight '" << node.input(weight) << "' rank "
                     << weightShape->second.size()
                     << "; they must be equal",
             failure();
    llvm::ArrayRef<int64_t> dims = weightShape->second;
    if (dims.size() < 3 ||
        llvm::any_of(dims.drop_front(2), [](int64_t d) { return d < 0; }) ||
        llvm::any_of(node.attribute(), [](const onnx::AttributeProto &attr) {
          return attr.name() == "kernel_shape";
        }))
      continue;
    onnx::AttributeProto *kernel = node.add_attribute();
    kernel->set_name("kernel_shape");
    kernel->set_type(onnx::AttributeProto::INTS);
    for (int64_t dim : dims.drop_front(2))
      kernel->add_ints(dim);
  }
  return success();
}
} // namespace

LogicalResult int21::onnx_import::spellOutKernelShapes(
    onnx::ModelProto &model, llvm::function_ref<InFlightDiagnostic()> error) {
  return spellOutGraphKernelShapes(*model.mutable_graph(), error);
}

