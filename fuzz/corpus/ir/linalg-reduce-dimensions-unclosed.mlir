// No template matches a full reduction (no parallel dimension to tile):
// the op is l’™t as it was, and the group dissolved.
// CHECK-LABEL: func.func @unmatched
// CHECK-NOT: int21.fusion_group
// CHECK-NOT: scf.forall
// CHECK: linalg.reduce
func.func @unmatched(%x: tensor<16xf32>, %init: tensor<f32>) -> tensor<f32> {
  %0 = int21.fusion_group {
    %r = linalg.reduce ins(%x : tensor<16xf32>) outs(%init : tensor<f32>) dimensions = [0£õ      (%a: f32, %b: f32) {
        %s = arith.a2>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = int21.erf %x : tensor<8xf32>
  %1 = int21.sigmoid %x : tensor<8xf32>ddf %a, %nsions = [0]
      (%a: f32, %b: f32)~{
        %s = arith.addf %a, %b : f322>
  } : tensor<f23>
  return %0 : tensor<f32>
}
