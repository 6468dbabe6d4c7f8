// Fresh IR for an exported schedule library: the matmul the library was
// tuned on (16x64x48, as in linear-relu.onnxtext), a matmul of another shape
// and an elementwise group, which the library must leave alone.
func.func @main(%a: tensor<16x48xf32>, %b: tensor<48x64xf32>, %c: tensor<16x64xf32>, %d: tensor<16x32xf32>, %e: tensor<32x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>) {
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %init = tensor.empty() : tensor<16x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%init : tensor<16x64xf32>) -> tensor<16x64xf32>
    %m = linalg.matmul ins(%a, %b : tensor<16x48xf32>, tensor<48x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
    int21.yield %m : tensor<16x64xf32>
  } : tensor<16x64xf32>
  %1 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %init = tensor.empty() : tensor<16x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%init : tensor<16x64xf32>) -> tensor<16x64xf32>
    %m = linalg.matmul ins(%d, %e : tensor<16x32xf32>, tensor<32x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
    int21.yield %m : tensor<16x64xf32>
  } : tensor<16x64xf32>
  %2 = int21.fusion_group {
    %init = tensor.empty() : tensor<16x64xf32>
    %s = linalg.add ins(%0, %c : tensor<16x64xf32>, tensor<16x64xf32>) outs(%init : tensor<16x64xf32>) -> tensor<16x64xf32>
    int21.yield %s : tensor<16x64xf32>
  } : tensor<16x64xf32>
  return %0, %1, %2 : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>
}
