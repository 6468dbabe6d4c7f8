// RUN: int21-opt %s -split-input-file -int21-form-fusion-groups | FileCheck %s
// RUN: int21-opt %s -split-input-file -int21-form-fusion-groups="max-group-size=2" | FileCheck %s --check-prefix=MAX2
// RUN: int21-opt %s -split-input-file -int21-form-fusion-groups="fuse-elementwise=false" | FileCheck %s --check-prefix=NOFUSE

// The default fusion policy: a compute op starts a group, and an elementwise
// op joins the group of its producer when it is that producer's only user.
// The second and third RUN lines check the pass options on the first case.

// CHECK-LABEL: func.func @conv_add_relu
// CHECK-SAME: ([[X:%.+]]: tensor<1x4x8x8xf32>, [[W:%.+]]: tensor<8x4x3x3xf32>, [[B:%.+]]: tensor<1x8x1x1xf32>)
// CHECK-NEXT: [[G:%.+]] = int21.fusion_group {
// CHECK-NEXT:   [[C:%.+]] = int21.conv [[X]], [[W]]
// CHECK-NEXT:   [[A:%.+]] = int21.add [[C]], [[B]]
// CHECK-NEXT:   [[R:%.+]] = int21.relu [[A]]
// CHECK-NEXT:   int21.yield [[R]] : tensor<1x8x6x6xf32>
// CHECK-NEXT: } : tensor<1x8x6x6xf32>
// CHECK-NEXT: return [[G]]

// At most two ops per group: the relu starts a group of its own.
// MAX2-LABEL: func.func @conv_add_relu
// MAX2-NEXT: [[G0:%.+]] = int21.fusion_group {
// MAX2-NEXT:   [[C:%.+]] = int21.conv
// MAX2-NEXT:   [[A:%.+]] = int21.add [[C]]
// MAX2-NEXT:   int21.yield [[A]]
// MAX2-NEXT: }
// MAX2-NEXT: [[G1:%.+]] = int21.fusion_group {
// MAX2-NEXT:   [[R:%.+]] = int21.relu [[G0]]
// MAX2-NEXT:   int21.yield [[R]]
// MAX2-NEXT: }
// MAX2-NEXT: return [[G1]]

// Without elementwise fusion every op is a group of its own.
// NOFUSE-LABEL: func.func @conv_add_relu
// NOFUSE-NEXT: [[G0:%.+]] = int21.fusion_group {
// NOFUSE-NEXT:   [[C:%.+]] = int21.conv
// NOFUSE-NEXT:   int21.yield [[C]]
// NOFUSE-NEXT: }
// NOFUSE-NEXT: [[G1:%.+]] = int21.fusion_group {
// NOFUSE-NEXT:   [[A:%.+]] = int21.add [[G0]]
// NOFUSE-NEXT:   int21.yield [[A]]
// NOFUSE-NEXT: }
// NOFUSE-NEXT: [[G2:%.+]] = int21.fusion_group {
// NOFUSE-NEXT:   [[R:%.+]] = int21.relu [[G1]]
// NOFUSE-NEXT:   int21.yield [[R]]
// NOFUSE-NEXT: }
// NOFUSE-NEXT: return [[G2]]
func.func @conv_add_relu(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<1x8x1x1xf32>) -> tensor<1x8x6x6xf32> {
  %0 = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %1 = int21.add %0, %b : (tensor<1x8x6x6xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x6x6xf32>
  %2 = int21.relu %1 : tensor<1x8x6x6xf32>
  return %2 : tensor<1x8x6x6xf32>
}

// -----

// A long elementwise chain is cut every max-group-size ops.
// CHECK-LABEL: func.func @elementwise_chain
// CHECK-COUNT-1: int21.fusion_group
// CHECK-NOT: int21.fusion_group
// CHECK: return
// MAX2-LABEL: func.func @elementwise_chain
// MAX2-COUNT-3: int21.fusion_group
// MAX2-NOT: int21.fusion_group
// MAX2: return
// NOFUSE-LABEL: func.func @elementwise_chain
// NOFUSE-COUNT-5: int21.fusion_group
// NOFUSE-NOT: int21.fusion_group
// NOFUSE: return
func.func @elementwise_chain(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = int21.exp %x : tensor<8xf32>
  %1 = int21.neg %0 : tensor<8xf32>
  %2 = int21.tanh %1 : tensor<8xf32>
  %3 = int21.abs %2 : tensor<8xf32>
  %4 = int21.sigmoid %3 : tensor<8xf32>
  return %4 : tensor<8xf32>
}

// -----

// matmul + bias + GELU (x * 0.5 * (1 + erf(x / sqrt(2)))): the biased matmul
// result has two users, so the GELU's first op cannot join it alone; the
// GELU forms a cluster of its own, which then joins the matmul's, the only
// cluster it reads, whose result only it uses: one group, the epilogue in
// the matmul's. Constants stay outside the groups.
// CHECK-LABEL: func.func @matmul_add_gelu
// CHECK-SAME: ([[A:%.+]]: tensor<4x8xf32>, [[B:%.+]]: tensor<8x16xf32>, [[BIAS:%.+]]: tensor<16xf32>)
// CHECK-DAG: [[HALF:%.+]] = int21.constant dense<5.000000e-01>
// CHECK-DAG: [[ONE:%.+]] = int21.constant dense<1.000000e+00>
// CHECK-DAG: [[RSQRT2:%.+]] = int21.constant dense<0.707106769>
// CHECK: [[MM:%.+]] = int21.fusion_group {
// CHECK-NEXT:   [[M:%.+]] = int21.matmul [[A]], [[B]]
// CHECK-NEXT:   [[H:%.+]] = int21.add [[M]], [[BIAS]]
// CHECK-NEXT:   [[S:%.+]] = int21.mul [[H]], [[RSQRT2]]
// CHECK-NEXT:   [[E:%.+]] = int21.erf [[S]]
// CHECK-NEXT:   [[P:%.+]] = int21.add [[E]], [[ONE]]
// CHECK-NEXT:   [[Q:%.+]] = int21.mul [[H]], [[P]]
// CHECK-NEXT:   [[R:%.+]] = int21.mul [[Q]], [[HALF]]
// CHECK-NEXT:   int21.yield [[R]] : tensor<4x16xf32>
// CHECK-NEXT: } : tensor<4x16xf32>
// CHECK-NEXT: return [[MM]]
func.func @matmul_add_gelu(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %bias: tensor<16xf32>) -> tensor<4x16xf32> {
  %half = int21.constant dense<0.5> : tensor<f32>
  %one = int21.constant dense<1.0> : tensor<f32>
  %rsqrt2 = int21.constant dense<0.707106769> : tensor<f32>
  %0 = int21.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = int21.add %0, %bias : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = int21.mul %1, %rsqrt2 : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %3 = int21.erf %2 : tensor<4x16xf32>
  %4 = int21.add %3, %one : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %5 = int21.mul %1, %4 : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %6 = int21.mul %5, %half : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  return %6 : tensor<4x16xf32>
}

// -----

// ResNet block: the skip connection is defined before the second conv, so
// the residual add (and the relu after it) join the second conv's group.
// CHECK-LABEL: func.func @residual
// CHECK-SAME: ([[X:%.+]]: tensor<1x8x6x6xf32>, [[W1:%.+]]: tensor<8x8x3x3xf32>, [[W2:%.+]]: tensor<8x8x3x3xf32>)
// CHECK-NEXT: [[SKIP:%.+]] = int21.fusion_group {
// CHECK-NEXT:   [[C1:%.+]] = int21.conv [[X]], [[W1]]
// CHECK-NEXT:   [[R1:%.+]] = int21.relu [[C1]]
// CHECK-NEXT:   int21.yield [[R1]]
// CHECK-NEXT: }
// CHECK-NEXT: [[OUT:%.+]] = int21.fusion_group {
// CHECK-NEXT:   [[C2:%.+]] = int21.conv [[SKIP]], [[W2]]
// CHECK-NEXT:   [[SUM:%.+]] = int21.add [[SKIP]], [[C2]]
// CHECK-NEXT:   [[R2:%.+]] = int21.relu [[SUM]]
// CHECK-NEXT:   int21.yield [[R2]]
// CHECK-NEXT: }
// CHECK-NEXT: return [[OUT]]
func.func @residual(%x: tensor<1x8x6x6xf32>, %w1: tensor<8x8x3x3xf32>, %w2: tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %0 = int21.conv %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32>
  %1 = int21.relu %0 : tensor<1x8x6x6xf32>
  %2 = int21.conv %1, %w2 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32>
  %3 = int21.add %1, %2 : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %4 = int21.relu %3 : tensor<1x8x6x6xf32>
  return %4 : tensor<1x8x6x6xf32>
}

// -----

// The matmul result has two users: neither consumer may fuse with it.
// CHECK-LABEL: func.func @producer_with_two_users
// CHECK-NEXT: [[M:%.+]] = int21.fusion_group {
// CHECK-NEXT:   int21.matmul
// CHECK-NEXT:   int21.yield
// CHECK-NEXT: }
// CHECK-NEXT: [[R:%.+]] = int21.fusion_group {
// CHECK-NEXT:   int21.relu [[M]]
// CHECK-NEXT:   int21.yield
// CHECK-NEXT: }
// CHECK-NEXT: [[E:%.+]] = int21.fusion_group {
// CHECK-NEXT:   int21.exp [[M]]
// CHECK-NEXT:   int21.yield
// CHECK-NEXT: }
// CHECK-NEXT: return [[R]], [[E]]
func.func @producer_with_two_users(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %0 = int21.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %1 = int21.relu %0 : tensor<4x2xf32>
  %2 = int21.exp %0 : tensor<4x2xf32>
  return %1, %2 : tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// A value used by the joining op and by the function too escapes the group.
// CHECK-LABEL: func.func @result_used_outside
// CHECK-NEXT: [[M:%.+]] = int21.fusion_group {
// CHECK-NEXT:   [[MM:%.+]] = int21.matmul
// CHECK-NEXT:   [[R:%.+]] = int21.relu [[MM]]
// CHECK-NEXT:   int21.yield [[R]]
// CHECK-NEXT: }
// CHECK-NEXT: [[E:%.+]] = int21.fusion_group {
// CHECK-NEXT:   int21.exp [[M]]
// CHECK-NEXT:   int21.yield
// CHECK-NEXT: }
// CHECK-NEXT: return [[M]], [[E]]
func.func @result_used_outside(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %0 = int21.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %1 = int21.relu %0 : tensor<4x2xf32>
  %2 = int21.exp %1 : tensor<4x2xf32>
  return %1, %2 : tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// Data movement ops and constants stay outside groups, and an elementwise op
// fed by one starts a group of its own.
// CHECK-LABEL: func.func @data_movement_outside
// CHECK-SAME: ([[A:%.+]]: tensor<4x8xf32>, [[B:%.+]]: tensor<8x2xf32>, [[I:%.+]]: tensor<3xi64>)
// CHECK-NEXT: [[C:%.+]] = int21.constant
// CHECK-NEXT: [[M:%.+]] = int21.fusion_group {
// CHECK-NEXT:   int21.matmul [[A]], [[B]]
// CHECK-NEXT:   int21.yield
// CHECK-NEXT: }
// CHECK-NEXT: [[RS:%.+]] = int21.reshape [[M]]
// CHECK-NEXT: [[T:%.+]] = int21.transpose [[RS]]
// CHECK-NEXT: [[S:%.+]] = int21.slice [[T]]
// CHECK-NEXT: [[P:%.+]] = int21.pad [[S]]
// CHECK-NEXT: [[E:%.+]] = int21.expand [[P]]
// CHECK-NEXT: [[G:%.+]] = int21.gather [[E]], [[I]]
// CHECK-NEXT: [[CC:%.+]] = int21.concat [[G]], [[C]]
// CHECK-NEXT: [[R:%.+]] = int21.fusion_group {
// CHECK-NEXT:   int21.relu [[CC]]
// CHECK-NEXT:   int21.yield
// CHECK-NEXT: }
// CHECK-NEXT: return [[R]]
func.func @data_movement_outside(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %i: tensor<3xi64>) -> tensor<2x5x2xf32> {
  %c = int21.constant dense<1.0> : tensor<2x2x2xf32>
  %0 = int21.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %1 = int21.reshape %0 : tensor<4x2xf32> to tensor<2x4xf32>
  %2 = int21.transpose %1 {perm = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  %3 = int21.slice %2 {starts = array<i64: 3, 0>, sizes = array<i64: 2, 2>, steps = array<i64: -1, 1>} : (tensor<4x2xf32>) -> tensor<2x2xf32>
  %4 = int21.pad %3 {pads = array<i64: 0, 0, 0, 0>, mode = #int21<pad_mode edge>, value = 0.0} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %5 = int21.expand %4 : tensor<2x2xf32> to tensor<2x2x2xf32>
  %6 = int21.gather %5, %i {axis = 1 : i64} : (tensor<2x2x2xf32>, tensor<3xi64>) -> tensor<2x3x2xf32>
  %7 = int21.concat %6, %c {axis = 1 : i64} : (tensor<2x3x2xf32>, tensor<2x2x2xf32>) -> tensor<2x5x2xf32>
  %8 = int21.relu %7 : tensor<2x5x2xf32>
  return %8 : tensor<2x5x2xf32>
}

// -----

// The add's other operand is defined after the matmul, so the add cannot move
// up into the matmul's group.
// CHECK-LABEL: func.func @operand_defined_later
// CHECK-NEXT: [[M:%.+]] = int21.fusion_group {
// CHECK-NEXT:   int21.matmul
// CHECK-NEXT:   int21.yield
// CHECK-NEXT: }
// CHECK-NEXT: [[T:%.+]] = int21.transpose
// CHECK-NEXT: [[A:%.+]] = int21.fusion_group {
// CHECK-NEXT:   int21.add [[M]], [[T]]
// CHECK-NEXT:   int21.yield
// CHECK-NEXT: }
// CHECK-NEXT: return [[A]]
func.func @operand_defined_later(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %y: tensor<2x4xf32>) -> tensor<4x2xf32> {
  %0 = int21.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %1 = int21.transpose %y {perm = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  %2 = int21.add %0, %1 : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %2 : tensor<4x2xf32>
}

// -----

// Non-elementwise consumers (here a reduction) start their own group even
// when they are the only user.
// CHECK-LABEL: func.func @reduction_not_fused
// CHECK: int21.fusion_group {
// CHECK-NEXT: int21.exp
// CHECK-NEXT: int21.yield
// CHECK: int21.fusion_group {
// CHECK-NEXT: int21.reduce_sum
// CHECK-NEXT: int21.yield
func.func @reduction_not_fused(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = int21.exp %x : tensor<4x8xf32>
  %1 = int21.reduce_sum %0 {axes = array<i64: 1>, keepdims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Ops already in a group are left alone; other dialects' ops are not grouped.
// CHECK-LABEL: func.func @existing_group_and_other_dialects
// CHECK-NEXT: [[OLD:%.+]] = int21.fusion_group schedule(<@cpu.elementwise_1d, {}>) {
// CHECK-NEXT:   int21.exp
// CHECK-NEXT:   int21.yield
// CHECK-NEXT: }
// CHECK-NEXT: [[T:%.+]] = tensor.empty
// CHECK-NEXT: [[NEW:%.+]] = int21.fusion_group {
// CHECK-NEXT:   int21.add [[OLD]], [[T]]
// CHECK-NEXT:   int21.yield
// CHECK-NEXT: }
// CHECK-NEXT: return [[NEW]]
func.func @existing_group_and_other_dialects(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = int21.fusion_group schedule(#int21.schedule<@cpu.elementwise_1d, {}>) {
    %1 = int21.exp %x : tensor<4xf32>
    int21.yield %1 : tensor<4xf32>
  } : tensor<4xf32>
  %2 = tensor.empty() : tensor<4xf32>
  %3 = int21.add %0, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// A result nobody uses still gets a group, with no results.
// CHECK-LABEL: func.func @dead_op
// CHECK-NEXT: int21.fusion_group {
// CHECK-NEXT:   int21.relu
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @dead_op(%x: tensor<4xf32>) {
  %0 = int21.relu %x : tensor<4xf32>
  return
}

// -----

// Groups are formed per block. A value from a dominating block may be read by
// a group anywhere in this one, so the add still joins the matmul.
// CHECK-LABEL: func.func @multi_block
// CHECK: [[E:%.+]] = int21.fusion_group {
// CHECK-COUNT-4: int21.exp
// CHECK: [[T0:%.+]] = int21.transpose [[E]]
// CHECK-NEXT: [[T:%.+]] = int21.transpose [[T0]]
// CHECK-NEXT: cf.br ^bb1
// CHECK: ^bb1:
// CHECK-NEXT: [[G:%.+]] = int21.fusion_group {
// CHECK-NEXT:   [[M:%.+]] = int21.matmul
// CHECK-NEXT:   [[A:%.+]] = int21.add [[M]], [[T]]
// CHECK-NEXT:   int21.yield [[A]]
// CHECK-NEXT: }
// CHECK-NEXT: return [[G]]
func.func @multi_block(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %0 = int21.exp %c : tensor<4x2xf32>
  %1 = int21.exp %0 : tensor<4x2xf32>
  %2 = int21.exp %1 : tensor<4x2xf32>
  %3 = int21.exp %2 : tensor<4x2xf32>
  %4 = int21.transpose %3 {perm = array<i64: 1, 0>} : (tensor<4x2xf32>) -> tensor<2x4xf32>
  %t = int21.transpose %4 {perm = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  cf.br ^bb1
^bb1:
  %5 = int21.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %6 = int21.add %5, %t : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %6 : tensor<4x2xf32>
}

// -----

// SiLU (x * sigmoid(x)) after a convolution joins its group; a value the
// producer's group yields to anything else (here the function's result)
// keeps the epilogue apart.
// CHECK-LABEL: func.func @silu_epilogues
// CHECK: [[G0:%.+]] = int21.fusion_group {
// CHECK-NEXT:   [[C:%.+]] = int21.conv
// CHECK-NEXT:   [[S:%.+]] = int21.sigmoid [[C]]
// CHECK-NEXT:   [[Y:%.+]] = int21.mul [[C]], [[S]]
// CHECK-NEXT:   int21.yield [[Y]]
// CHECK-NEXT: }
// CHECK: [[G1:%.+]] = int21.fusion_group {
// CHECK-NEXT:   int21.conv [[G0]]
// CHECK-NEXT:   int21.yield
// CHECK-NEXT: }
// CHECK: [[G2:%.+]] = int21.fusion_group {
// CHECK-NEXT:   [[S2:%.+]] = int21.sigmoid [[G1]]
// CHECK-NEXT:   int21.mul [[G1]], [[S2]]
// CHECK-NEXT:   int21.yield
// CHECK-NEXT: }
// CHECK-NEXT: return [[G0]], [[G1]], [[G2]]
func.func @silu_epilogues(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x1x1xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  %0 = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %1 = int21.sigmoid %0 : tensor<1x4x6x6xf32>
  %2 = int21.mul %0, %1 : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %3 = int21.conv %2, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %4 = int21.sigmoid %3 : tensor<1x4x6x6xf32>
  %5 = int21.mul %3, %4 : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %2, %3, %5 : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}

// -----

// Squeeze-and-excitation: the scale (a 1x1 convolution of the pooled
// [1, C, 1, 1] and its sigmoid) multiplies [1, C, H, W]. The multiply
// broadcasts the convolution's group's value to a larger result, so it
// stays out of that group and gets one of its own (the elementwise
// template), while the sigmoid, of the convolution's shape, joins it.
// CHECK-LABEL: func.func @squeeze_excitation
// CHECK: [[SCALE:%.+]] = int21.fusion_group {
// CHECK-NEXT:   [[C:%.+]] = int21.conv
// CHECK-NEXT:   [[S:%.+]] = int21.sigmoid [[C]]
// CHECK-NEXT:   int21.yield [[S]] : tensor<1x4x1x1xf32>
// CHECK-NEXT: }
// CHECK-NEXT: [[Y:%.+]] = int21.fusion_group {
// CHECK-NEXT:   int21.mul %arg0, [[SCALE]]
// CHECK-NEXT:   int21.yield
// CHECK-NEXT: }
// CHECK-NEXT: return [[Y]]
func.func @squeeze_excitation(%x: tensor<1x4x6x6xf32>, %p: tensor<1x4x1x1xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32> {
  %0 = int21.conv %p, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x1x1xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x1x1xf32>
  %1 = int21.sigmoid %0 : tensor<1x4x1x1xf32>
  %2 = int21.mul %x, %1 : (tensor<1x4x6x6xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  return %2 : tensor<1x4x6x6xf32>
}
