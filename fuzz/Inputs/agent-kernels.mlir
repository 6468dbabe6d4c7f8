// The kernels int21-fuzz-agent reads answers for: a matmul, an elementwise
// group and a convolution, as the search would send them to an agent.
func.func @main(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>,
                %x: tensor<1x8x16x16xf32>, %w: tensor<16x8x3x3xf32>)
    -> (tensor<64x256xf32>, tensor<1x16x14x14xf32>) {
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
    %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
    int21.yield %m : tensor<64x256xf32>
  } : tensor<64x256xf32>
  %1 = int21.fusion_group {
    %e = tensor.empty() : tensor<64x256xf32>
    %s = linalg.add ins(%0, %0 : tensor<64x256xf32>, tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
    int21.yield %s : tensor<64x256xf32>
  } : tensor<64x256xf32>
  %2 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x16x14x14xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x14x14xf32>) -> tensor<1x16x14x14xf32>
    %c = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x8x16x16xf32>, tensor<16x8x3x3xf32>) outs(%f : tensor<1x16x14x14xf32>) -> tensor<1x16x14x14xf32>
    int21.yield %c : tensor<1x16x14x14xf32>
  } : tensor<1x16x14x14xf32>
  return %1, %2 : tensor<64x256xf32>, tensor<1x16x14x14xf32>
}
