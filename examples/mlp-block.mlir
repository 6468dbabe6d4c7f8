// A dense layer with a bias and ReLU, then softmax: what `int21-compile`
// imports from an MLP. `scripts/demo.sh` groups it into kernels.
func.func @mlp_block(%x: tensor<64x784xf32>, %w: tensor<784x128xf32>,
                     %b: tensor<128xf32>) -> tensor<64x128xf32> {
  %0 = int21.matmul %x, %w : (tensor<64x784xf32>, tensor<784x128xf32>) -> tensor<64x128xf32>
  %1 = int21.add %0, %b : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  %2 = int21.relu %1 : tensor<64x128xf32>
  %3 = int21.softmax %2 {axis = 1 : i64} : tensor<64x128xf32>
  return %3 : tensor<64x128xf32>
}
