//===- Composer.h - building an ONNX function body from int21 ops --------===//
//
// Internal to lib/Import. Handlers that decompose an ONNX operator into many
// int21 ops chain them through a Composer: every step after a failed one is
// skipped (the failure already reported a diagnostic at the node), and
// `setResult` reports whether the whole chain succeeded.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_LIB_IMPORT_OPS_COMPOSER_H
#define INT21_LIB_IMPORT_OPS_COMPOSER_H

#include "../NodeImporter.h"

namespace int21::onnx_import {

class Composer {
public:
  explicit Composer(NodeImporter &n) : n(n) {}

  /// `OpTy` built through NodeImporter::create, or null once anything failed.
  template <typename OpTy, typename... Args> Value op(Args &&...args) {
    if (failed_)
      return {};
    FailureOr<Value> v = n.create<OpTy>(std::forward<Args>(args)...);
    if (mlir::failed(v)) {
      failed_ = true;
      return {};
    }
    return *v;
  }
  Value reshape(Value v, ArrayRef<int64_t> shape);
  /// `size` elements of `v` from `start` along `axis`.
  Value slice(Value v, int64_t axis, int64_t start, int64_t size);
  Value transpose(Value v, ArrayRef<int64_t> perm);
  Value concat(ValueRange values, int64_t axis);
  Value reduceMean(Value v, ArrayRef<int64_t> axes, bool keepdims = true);
  /// Fails the chain with `message` at the node.
  Value fail(const Twine &message);

  bool hasFailed() const { return failed_; }
  /// Sets output `i` to `v`; fails when the chain did.
  LogicalResult setOutput(unsigned i, Value v);
  LogicalResult setResult(Value v) { return setOutput(0, v); }

private:
  NodeImporter &n;
  bool failed_ = false;
};

} // namespace int21::onnx_import

#endif // INT21_LIB_IMPORT_OPS_COMPOSER_H
