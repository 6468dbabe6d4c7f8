// RUN: int21-opt %s -split-input-file -verify-diagnostics

// Every verifier and type-inference diagnostic of the int21 dialect.

//===----------------------------------------------------------------------===//
// int21.constant
//===----------------------------------------------------------------------===//

func.func @constant_not_a_tensor() {
  // expected-error @+1 {{'int21.constant' op expects a ranked tensor value}}
  %0 = int21.constant dense<1> : vector<2xi32>
  return
}

// -----

func.func @constant_dynamic_value() {
  // expected-error @+1 {{'int21.constant' op expects a statically shaped value}}
  %0 = "int21.constant"() <{value = dense_resource<blob> : tensor<?xf32>}> : () -> tensor<3xf32>
  return
}

// -----

func.func @constant_result_type_mismatch() {
  // expected-error @+2 {{'int21.constant' op inferred type(s) 'tensor<2xi32>' are incompatible with return type(s) of operation 'tensor<3xi32>'}}
  // expected-error @+1 {{'int21.constant' op failed to infer returned types}}
  %0 = "int21.constant"() <{value = dense<1> : tensor<2xi32>}> : () -> tensor<3xi32>
  return
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

// -----

func.func @cast_shape_mismatch(%x: tensor<4xf32>) {
  // expected-error @+1 {{'int21.cast' op expects input and result to have the same shape, got 4 and 2x2}}
  %0 = int21.cast %x : tensor<4xf32> to tensor<2x2xi32>
  return
}

// -----

func.func @binary_not_broadcastable(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'int21.add' op expects operand shapes 2x3 and 4 to be broadcast compatible}}
  // expected-error @+1 {{'int21.add' op failed to infer returned types}}
  %0 = int21.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @binary_result_shape_mismatch(%a: tensor<2x1xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'int21.mul' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x1xf32>'}}
  // expected-error @+1 {{'int21.mul' op failed to infer returned types}}
  %0 = int21.mul %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @compare_result_not_bool(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'int21.less' op result #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = int21.less %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @compare_not_broadcastable(%a: tensor<3xi32>, %b: tensor<2x2xi32>) {
  // expected-error @+2 {{'int21.equal' op expects operand shapes 3 and 2x2 to be broadcast compatible}}
  // expected-error @+1 {{'int21.equal' op failed to infer returned types}}
  %0 = int21.equal %a, %b : (tensor<3xi32>, tensor<2x2xi32>) -> tensor<2x3xi1>
  return
}

// -----

func.func @where_not_broadcastable(%c: tensor<2x3xi1>, %a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+2 {{'int21.where' op expects operand shapes 2x3 and 2 to be broadcast compatible}}
  // expected-error @+1 {{'int21.where' op failed to infer returned types}}
  %0 = int21.where %c, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @where_result_shape_mismatch(%c: tensor<4x1x1xi1>, %a: tensor<2x1xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'int21.where' op inferred type(s) 'tensor<4x2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'int21.where' op failed to infer returned types}}
  %0 = int21.where %c, %a, %b : (tensor<4x1x1xi1>, tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// int21.matmul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_rank_one(%a: tensor<8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+2 {{'int21.matmul' op expects operands of rank 2 or more, got 1 and 2}}
  // expected-error @+1 {{'int21.matmul' op failed to infer returned types}}
  %0 = int21.matmul %a, %b : (tensor<8xf32>, tensor<8x2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @matmul_k_mismatch(%a: tensor<4x8xf32>, %b: tensor<7x2xf32>) {
  // expected-error @+2 {{'int21.matmul' op expects lhs and rhs to agree on K, got 8 and 7}}
  // expected-error @+1 {{'int21.matmul' op failed to infer returned types}}
  %0 = int21.matmul %a, %b : (tensor<4x8xf32>, tensor<7x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @matmul_batch_mismatch(%a: tensor<3x4x8xf32>, %b: tensor<2x8x2xf32>) {
  // expected-error @+2 {{'int21.matmul' op expects batch dimensions 3 and 2 to be broadcast compatible}}
  // expected-error @+1 {{'int21.matmul' op failed to infer returned types}}
  %0 = int21.matmul %a, %b : (tensor<3x4x8xf32>, tensor<2x8x2xf32>) -> tensor<3x4x2xf32>
  return
}

// -----

func.func @matmul_result_shape_mismatch(%a: tensor<3x4x8xf32>, %b: tensor<8x2xf32>) {
  // expected-error @+2 {{'int21.matmul' op inferred type(s) 'tensor<3x4x2xf32>' are incompatible with return type(s) of operation 'tensor<4x2xf32>'}}
  // expected-error @+1 {{'int21.matmul' op failed to infer returned types}}
  %0 = int21.matmul %a, %b : (tensor<3x4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return
}

//===----------------------------------------------------------------------===//
// int21.conv
//===----------------------------------------------------------------------===//

// -----

func.func @conv_rank_two(%x: tensor<1x4xf32>, %w: tensor<2x4xf32>) {
  // expected-error @+2 {{'int21.conv' op expects an input of rank 3 or more (N, C, spatial...), got rank 2}}
  // expected-error @+1 {{'int21.conv' op failed to infer returned types}}
  %0 = int21.conv %x, %w {strides = array<i64>, pads = array<i64>, dilations = array<i64>, group = 1 : i64}
      : (tensor<1x4xf32>, tensor<2x4xf32>) -> tensor<1x2xf32>
  return
}

// -----

func.func @conv_weight_rank(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3xf32>) {
  // expected-error @+2 {{'int21.conv' op expects a weight of rank 4, got rank 3}}
  // expected-error @+1 {{'int21.conv' op failed to infer returned types}}
  %0 = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x4x8x8xf32>, tensor<2x4x3xf32>) -> tensor<1x2x6x6xf32>
  return
}

// -----

func.func @conv_strides_count(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf32>) {
  // expected-error @+2 {{'int21.conv' op expects 2 strides, got 1}}
  // expected-error @+1 {{'int21.conv' op failed to infer returned types}}
  %0 = int21.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x6x6xf32>
  return
}

// -----

func.func @conv_dilations_count(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf32>) {
  // expected-error @+2 {{'int21.conv' op expects 2 dilations, got 3}}
  // expected-error @+1 {{'int21.conv' op failed to infer returned types}}
  %0 = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, group = 1 : i64}
      : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x6x6xf32>
  return
}

// -----

func.func @conv_pads_count(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf32>) {
  // expected-error @+2 {{'int21.conv' op expects 4 pads (begins, then ends), got 2}}
  // expected-error @+1 {{'int21.conv' op failed to infer returned types}}
  %0 = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x6x6xf32>
  return
}

// -----

func.func @conv_zero_stride(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf32>) {
  // expected-error @+2 {{'int21.conv' op expects positive strides}}
  // expected-error @+1 {{'int21.conv' op failed to infer returned types}}
  %0 = int21.conv %x, %w {strides = array<i64: 1, 0>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x6x6xf32>
  return
}

// -----

func.func @conv_negative_dilation(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf32>) {
  // expected-error @+2 {{'int21.conv' op expects positive dilations}}
  // expected-error @+1 {{'int21.conv' op failed to infer returned types}}
  %0 = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: -1, 1>, group = 1 : i64}
      : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x6x6xf32>
  return
}

// -----

func.func @conv_negative_pad(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf32>) {
  // expected-error @+2 {{'int21.conv' op expects non-negative pads}}
  // expected-error @+1 {{'int21.conv' op failed to infer returned types}}
  %0 = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, -1, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x6x6xf32>
  return
}

// -----

func.func @conv_group_does_not_divide(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+2 {{'int21.conv' op expects group 3 to divide the input channels 4 and the filters 6}}
  // expected-error @+1 {{'int21.conv' op failed to infer returned types}}
  %0 = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 3 : i64}
      : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_weight_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+2 {{'int21.conv' op expects weight dimension 1 to be channels / group = 2, got 4}}
  // expected-error @+1 {{'int21.conv' op failed to infer returned types}}
  %0 = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64}
      : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_element_types(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf16>) {
  // expected-error @+2 {{'int21.conv' op expects input and weight of one element type}}
  // expected-error @+1 {{'int21.conv' op failed to infer returned types}}
  %0 = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf16>) -> tensor<1x2x6x6xf32>
  return
}

// -----

func.func @conv_bias_shape(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'int21.conv' op expects a bias of shape 2, got 4}}
  // expected-error @+1 {{'int21.conv' op failed to infer returned types}}
  %0 = int21.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>) -> tensor<1x2x6x6xf32>
  return
}

// -----

func.func @conv_bias_element_type(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf32>, %b: tensor<2xf16>) {
  // expected-error @+2 {{'int21.conv' op expects the bias to have the input's element type}}
  // expected-error @+1 {{'int21.conv' op failed to infer returned types}}
  %0 = int21.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>, tensor<2xf16>) -> tensor<1x2x6x6xf32>
  return
}

// -----

func.func @conv_kernel_too_large(%x: tensor<1x4x8x2xf32>, %w: tensor<2x4x3x3xf32>) {
  // expected-error @+2 {{'int21.conv' op expects padded spatial dimension 1 (2) to cover the dilated kernel (3)}}
  // expected-error @+1 {{'int21.conv' op failed to infer returned types}}
  %0 = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x4x8x2xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x6x1xf32>
  return
}

// -----

func.func @conv_result_shape_mismatch(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf32>) {
  // expected-error @+2 {{'int21.conv' op inferred type(s) 'tensor<1x2x3x3xf32>' are incompatible with return type(s) of operation 'tensor<1x2x6x6xf32>'}}
  // expected-error @+1 {{'int21.conv' op failed to infer returned types}}
  %0 = int21.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x6x6xf32>
  return
}

//===----------------------------------------------------------------------===//
// int21.conv_transpose
//===----------------------------------------------------------------------===//

// -----

func.func @conv_transpose_ranks(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+2 {{'int21.conv_transpose' op expects input and weight of one rank, 3 or more, got 4 and 3}}
  // expected-error @+1 {{'int21.conv_transpose' op failed to infer returned types}}
  %0 = int21.conv_transpose %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 1 : i64}
      : (tensor<1x4x5x5xf32>, tensor<4x3x3xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @conv_transpose_window_attrs(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'int21.conv_transpose' op expects positive strides}}
  // expected-error @+1 {{'int21.conv_transpose' op failed to infer returned types}}
  %0 = int21.conv_transpose %x, %w {strides = array<i64: 0, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 1 : i64}
      : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @conv_transpose_output_padding_count(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'int21.conv_transpose' op expects 2 output_padding entries, got 1}}
  // expected-error @+1 {{'int21.conv_transpose' op failed to infer returned types}}
  %0 = int21.conv_transpose %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0>, group = 1 : i64}
      : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @conv_transpose_group(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'int21.conv_transpose' op expects group 3 to divide the input channels 4}}
  // expected-error @+1 {{'int21.conv_transpose' op failed to infer returned types}}
  %0 = int21.conv_transpose %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 3 : i64}
      : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x9x7x7xf32>
  return
}

// -----

func.func @conv_transpose_weight_channels(%x: tensor<1x4x5x5xf32>, %w: tensor<2x3x3x3xf32>) {
  // expected-error @+2 {{'int21.conv_transpose' op expects weight dimension 0 to be the input channels 4, got 2}}
  // expected-error @+1 {{'int21.conv_transpose' op failed to infer returned types}}
  %0 = int21.conv_transpose %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 1 : i64}
      : (tensor<1x4x5x5xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

func.func @conv_transpose_bias_shape(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) {
  // With group 2 there are 3 * 2 filters.
  // expected-error @+2 {{'int21.conv_transpose' op expects a bias of shape 6, got 3}}
  // expected-error @+1 {{'int21.conv_transpose' op failed to infer returned types}}
  %0 = int21.conv_transpose %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 2 : i64}
      : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x6x7x7xf32>
  return
}

// -----

func.func @conv_transpose_non_positive_output(%x: tensor<1x4x1x5xf32>, %w: tensor<4x3x1x1xf32>) {
  // expected-error @+2 {{'int21.conv_transpose' op computes a non-positive output dimension -1 for spatial dimension 0}}
  // expected-error @+1 {{'int21.conv_transpose' op failed to infer returned types}}
  %0 = int21.conv_transpose %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 0, 1, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 1 : i64}
      : (tensor<1x4x1x5xf32>, tensor<4x3x1x1xf32>) -> tensor<1x3x1x5xf32>
  return
}

// -----

func.func @conv_transpose_result_shape_mismatch(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'int21.conv_transpose' op inferred type(s) 'tensor<1x3x11x11xf32>' are incompatible with return type(s) of operation 'tensor<1x3x10x10xf32>'}}
  // expected-error @+1 {{'int21.conv_transpose' op failed to infer returned types}}
  %0 = int21.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 1 : i64}
      : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x10x10xf32>
  return
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

// -----

func.func @pool_rank_two(%x: tensor<1x4xf32>) {
  // expected-error @+2 {{'int21.max_pool' op expects an input of rank 3 or more (N, C, spatial...)}}
  // expected-error @+1 {{'int21.max_pool' op failed to infer returned types}}
  %0 = int21.max_pool %x {kernel_shape = array<i64>, strides = array<i64>, pads = array<i64>, dilations = array<i64>, ceil_mode = false}
      : (tensor<1x4xf32>) -> tensor<1x4xf32>
  return
}

// -----

func.func @pool_kernel_shape_count(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{'int21.avg_pool' op expects 2 kernel_shape entries, got 1}}
  // expected-error @+1 {{'int21.avg_pool' op failed to infer returned types}}
  %0 = int21.avg_pool %x {kernel_shape = array<i64: 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false}
      : (tensor<1x4x8x8xf32>) -> tensor<1x4x7x7xf32>
  return
}

// -----

func.func @pool_zero_kernel(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{'int21.max_pool' op expects a positive kernel_shape}}
  // expected-error @+1 {{'int21.max_pool' op failed to infer returned types}}
  %0 = int21.max_pool %x {kernel_shape = array<i64: 2, 0>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false}
      : (tensor<1x4x8x8xf32>) -> tensor<1x4x7x7xf32>
  return
}

// -----

func.func @pool_window_attrs(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{'int21.max_pool' op expects 2 strides, got 3}}
  // expected-error @+1 {{'int21.max_pool' op failed to infer returned types}}
  %0 = int21.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false}
      : (tensor<1x4x8x8xf32>) -> tensor<1x4x7x7xf32>
  return
}

// -----

func.func @pool_kernel_too_large(%x: tensor<1x4x8x3xf32>) {
  // expected-error @+2 {{'int21.max_pool' op expects padded spatial dimension 1 (3) to cover the dilated kernel (5)}}
  // expected-error @+1 {{'int21.max_pool' op failed to infer returned types}}
  %0 = int21.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 2>, ceil_mode = false}
      : (tensor<1x4x8x3xf32>) -> tensor<1x4x6x1xf32>
  return
}

// -----

// ceil_mode rounds 6 / 2 + 1 up to 4 windows along each dimension: 7x7 -> 4x4.
func.func @pool_ceil_mode_result_mismatch(%x: tensor<1x2x7x7xf32>) {
  // expected-error @+2 {{'int21.max_pool' op inferred type(s) 'tensor<1x2x4x4xf32>' are incompatible with return type(s) of operation 'tensor<1x2x3x3xf32>'}}
  // expected-error @+1 {{'int21.max_pool' op failed to infer returned types}}
  %0 = int21.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true}
      : (tensor<1x2x7x7xf32>) -> tensor<1x2x3x3xf32>
  return
}

// -----

// ceil_mode drops the last window, which would start in the end padding.
func.func @pool_ceil_mode_drops_window(%x: tensor<1x1x4xf32>) {
  // expected-error @+2 {{'int21.avg_pool' op inferred type(s) 'tensor<1x1x2xf32>' are incompatible with return type(s) of operation 'tensor<1x1x3xf32>'}}
  // expected-error @+1 {{'int21.avg_pool' op failed to infer returned types}}
  %0 = int21.avg_pool %x {kernel_shape = array<i64: 2>, strides = array<i64: 3>, pads = array<i64: 0, 2>, dilations = array<i64: 1>, ceil_mode = true, count_include_pad = false}
      : (tensor<1x1x4xf32>) -> tensor<1x1x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

// -----

func.func @argmax_dynamic(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{'int21.argmax' op takes static shapes only, but operand #0 is 'tensor<?x3xf32>'}}
  %0 = int21.argmax %x {axis = 1 : i64, keepdims = true, select_last_index = false} : (tensor<?x3xf32>) -> tensor<?x1xi64>
  return
}

// -----

func.func @matmul_dynamic_k(%a: tensor<?x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{'int21.matmul' op expects lhs and rhs to agree on K, got 3 and 4}}
  // expected-error @+1 {{'int21.matmul' op failed to infer returned types}}
  %0 = int21.matmul %a, %b : (tensor<?x3xf32>, tensor<4x5xf32>) -> tensor<?x5xf32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'int21.softmax' op expects axis in [0, 2), got 2}}
  %0 = int21.softmax %x {axis = 2 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @log_softmax_negative_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'int21.log_softmax' op expects axis in [0, 2), got -1}}
  %0 = int21.log_softmax %x {axis = -1 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @layer_norm_axis(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'int21.layer_norm' op expects axis in [0, 2), got 3}}
  %0 = int21.layer_norm %x, %s {axis = 3 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @layer_norm_scale_element_type(%x: tensor<2x3xf32>, %s: tensor<3xf16>) {
  // expected-error @+1 {{'int21.layer_norm' op expects scale to have the input's element type}}
  %0 = int21.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x3xf32>, tensor<3xf16>) -> tensor<2x3xf32>
  return
}

// -----

func.func @layer_norm_bias_shape(%x: tensor<2x3x4xf32>, %s: tensor<4xf32>, %b: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'int21.layer_norm' op expects bias of shape 2x3x4 to broadcast to the normalised shape 3x4}}
  %0 = int21.layer_norm %x, %s, %b {axis = 1 : i64, epsilon = 1.0e-5 : f32}
      : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @layer_norm_scale_shape(%x: tensor<2x3x4xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'int21.layer_norm' op expects scale of shape 3 to broadcast to the normalised shape 4}}
  %0 = int21.layer_norm %x, %s {axis = 2 : i64, epsilon = 1.0e-5 : f32}
      : (tensor<2x3x4xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @batch_norm_rank(%x: tensor<4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'int21.batch_norm' op expects an input of rank 2 or more (N, C, ...)}}
  %0 = int21.batch_norm %x, %c, %c, %c, %c {epsilon = 1.0e-5 : f32}
      : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @batch_norm_parameter_shape(%x: tensor<2x4x8xf32>, %c: tensor<4xf32>, %v: tensor<8xf32>) {
  // expected-error @+1 {{'int21.batch_norm' op expects scale, bias, mean and variance of type 'tensor<4xf32>', got 'tensor<8xf32>'}}
  %0 = int21.batch_norm %x, %c, %c, %c, %v {epsilon = 1.0e-5 : f32}
      : (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'int21.reduce_sum' op expects axes in [0, 2), got 2}}
  // expected-error @+1 {{'int21.reduce_sum' op failed to infer returned types}}
  %0 = int21.reduce_sum %x {axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x3xf32>) -> tensor<f32>
  return
}

// -----

func.func @reduce_axes_not_increasing(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'int21.reduce_max' op expects strictly increasing axes}}
  // expected-error @+1 {{'int21.reduce_max' op failed to infer returned types}}
  %0 = int21.reduce_max %x {axes = array<i64: 1, 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @reduce_result_shape_mismatch(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'int21.reduce_mean' op inferred type(s) 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{'int21.reduce_mean' op failed to infer returned types}}
  %0 = int21.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @argmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'int21.argmax' op expects axis in [0, 2), got -1}}
  // expected-error @+1 {{'int21.argmax' op failed to infer returned types}}
  %0 = int21.argmax %x {axis = -1 : i64, keepdims = false, select_last_index = false} : (tensor<2x3xf32>) -> tensor<2xi64>
  return
}

// -----

func.func @argmin_result_shape_mismatch(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'int21.argmin' op inferred type(s) 'tensor<3xi64>' are incompatible with return type(s) of operation 'tensor<2xi64>'}}
  // expected-error @+1 {{'int21.argmin' op failed to infer returned types}}
  %0 = int21.argmin %x {axis = 0 : i64, keepdims = false, select_last_index = false} : (tensor<2x3xf32>) -> tensor<2xi64>
  return
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

// -----

func.func @transpose_perm_size(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'int21.transpose' op expects a permutation of 2 dimensions, got 3 entries}}
  // expected-error @+1 {{'int21.transpose' op failed to infer returned types}}
  %0 = int21.transpose %x {perm = array<i64: 0, 1, 2>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_not_a_permutation(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'int21.transpose' op expects perm to be a permutation of [0, 2)}}
  // expected-error @+1 {{'int21.transpose' op failed to infer returned types}}
  %0 = int21.transpose %x {perm = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @transpose_result_shape_mismatch(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'int21.transpose' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'int21.transpose' op failed to infer returned types}}
  %0 = int21.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @reshape_element_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'int21.reshape' op expects the same number of elements, got 6 (2x3) and 8 (2x4)}}
  %0 = int21.reshape %x : tensor<2x3xf32> to tensor<2x4xf32>
  return
}

// -----

func.func @expand_not_broadcastable(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'int21.expand' op expects input shape 2x3 to broadcast to the result shape 4x3}}
  %0 = int21.expand %x : tensor<2x3xf32> to tensor<4x3xf32>
  return
}

// -----

func.func @expand_to_lower_rank(%x: tensor<1x3xf32>) {
  // expected-error @+1 {{'int21.expand' op expects input shape 1x3 to broadcast to the result shape 3}}
  %0 = int21.expand %x : tensor<1x3xf32> to tensor<3xf32>
  return
}

// -----

func.func @concat_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'int21.concat' op expects axis in [0, 2), got 2}}
  // expected-error @+1 {{'int21.concat' op failed to infer returned types}}
  %0 = int21.concat %x, %x {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_ranks(%x: tensor<2x3xf32>, %y: tensor<2x3x1xf32>) {
  // expected-error @+2 {{'int21.concat' op expects inputs of one rank, got 2 and 3}}
  // expected-error @+1 {{'int21.concat' op failed to infer returned types}}
  %0 = int21.concat %x, %y {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_other_dimension(%x: tensor<2x3xf32>, %y: tensor<2x4xf32>) {
  // expected-error @+2 {{'int21.concat' op expects inputs to agree on dimension 1 (not the concatenation axis), got 3 and 4}}
  // expected-error @+1 {{'int21.concat' op failed to infer returned types}}
  %0 = int21.concat %x, %y {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_result_shape_mismatch(%x: tensor<2x3xf32>, %y: tensor<2x4xf32>) {
  // expected-error @+2 {{'int21.concat' op inferred type(s) 'tensor<2x7xf32>' are incompatible with return type(s) of operation 'tensor<2x6xf32>'}}
  // expected-error @+1 {{'int21.concat' op failed to infer returned types}}
  %0 = int21.concat %x, %y {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @slice_entry_count(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'int21.slice' op expects starts, sizes and steps with 2 entries each}}
  // expected-error @+1 {{'int21.slice' op failed to infer returned types}}
  %0 = int21.slice %x {starts = array<i64: 0, 0>, sizes = array<i64: 1>, steps = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  return
}

// -----

func.func @slice_zero_step(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'int21.slice' op expects non-zero steps, got 0 for dimension 1}}
  // expected-error @+1 {{'int21.slice' op failed to infer returned types}}
  %0 = int21.slice %x {starts = array<i64: 0, 0>, sizes = array<i64: 1, 1>, steps = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<1x1xf32>
  return
}

// -----

func.func @slice_negative_size(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'int21.slice' op expects non-negative sizes, got -1 for dimension 0}}
  // expected-error @+1 {{'int21.slice' op failed to infer returned types}}
  %0 = int21.slice %x {starts = array<i64: 0, 0>, sizes = array<i64: -1, 1>, steps = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<1x1xf32>
  return
}

// -----

func.func @slice_out_of_bounds(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'int21.slice' op reads out of bounds along dimension 1: elements 1 to -1 of 3}}
  // expected-error @+1 {{'int21.slice' op failed to infer returned types}}
  %0 = int21.slice %x {starts = array<i64: 0, 1>, sizes = array<i64: 2, 2>, steps = array<i64: 1, -2>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_result_shape_mismatch(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'int21.slice' op inferred type(s) 'tensor<1x2xf32>' are incompatible with return type(s) of operation 'tensor<2x1xf32>'}}
  // expected-error @+1 {{'int21.slice' op failed to infer returned types}}
  %0 = int21.slice %x {starts = array<i64: 1, 2>, sizes = array<i64: 1, 2>, steps = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @gather_axis(%x: tensor<2x3xf32>, %i: tensor<4xi64>) {
  // expected-error @+2 {{'int21.gather' op expects axis in [0, 2), got 2}}
  // expected-error @+1 {{'int21.gather' op failed to infer returned types}}
  %0 = int21.gather %x, %i {axis = 2 : i64} : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @gather_result_shape_mismatch(%x: tensor<2x3xf32>, %i: tensor<4x5xi32>) {
  // expected-error @+2 {{'int21.gather' op inferred type(s) 'tensor<2x4x5xf32>' are incompatible with return type(s) of operation 'tensor<4x5x3xf32>'}}
  // expected-error @+1 {{'int21.gather' op failed to infer returned types}}
  %0 = int21.gather %x, %i {axis = 1 : i64} : (tensor<2x3xf32>, tensor<4x5xi32>) -> tensor<4x5x3xf32>
  return
}

// -----

func.func @pad_count(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'int21.pad' op expects 4 pads (begins, then ends), got 2}}
  // expected-error @+1 {{'int21.pad' op failed to infer returned types}}
  %0 = int21.pad %x {pads = array<i64: 1, 1>, mode = #int21<pad_mode constant>, value = 0.0} : (tensor<2x3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @pad_crops_below_zero(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'int21.pad' op crops dimension 1 below zero elements}}
  // expected-error @+1 {{'int21.pad' op failed to infer returned types}}
  %0 = int21.pad %x {pads = array<i64: 0, -2, 0, -2>, mode = #int21<pad_mode edge>, value = 0.0} : (tensor<2x3xf32>) -> tensor<2x0xf32>
  return
}

// -----

func.func @pad_result_shape_mismatch(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'int21.pad' op inferred type(s) 'tensor<3x5xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'int21.pad' op failed to infer returned types}}
  %0 = int21.pad %x {pads = array<i64: 1, 0, 0, 2>, mode = #int21<pad_mode wrap>, value = 0.0} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @pad_unknown_mode(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{expected ::int21::PadMode to be one of: constant, reflect, edge, wrap}}
  // expected-error @+1 {{failed to parse Int21_PadModeAttr parameter 'value' which is to be a `::int21::PadMode`}}
  %0 = int21.pad %x {pads = array<i64: 0, 0, 0, 0>, mode = #int21<pad_mode mirror>, value = 0.0} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Fusion groups and schedules
//===----------------------------------------------------------------------===//

// -----

func.func @fusion_group_yield_types(%x: tensor<4xf32>) {
  // expected-error @+1 {{'int21.fusion_group' op expects the body to yield the result types 'tensor<4xf32>', got 'tensor<4xf32>', 'tensor<4xf32>'}}
  %0 = int21.fusion_group {
    %1 = int21.relu %x : tensor<4xf32>
    int21.yield %1, %1 : tensor<4xf32>, tensor<4xf32>
  } : tensor<4xf32>
  return
}

// -----

func.func @yield_outside_group(%x: tensor<4xf32>) {
  // expected-error @+1 {{'int21.yield' op expects parent op 'int21.fusion_group'}}
  int21.yield %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{unknown schedule template @cpu.nosuch}}
func.func @schedule_unknown_template() attributes {s = #int21.schedule<@cpu.nosuch, {}>} {
  return
}

// -----

// expected-error @+1 {{template @cpu.matmul has no knob 'reg_nn' (its knobs: par_m, par_n, cache_k, reg_m, reg_n, reg_k, epilogue_regs, pack_b, cache_n)}}
func.func @schedule_unknown_knob() attributes {s = #int21.schedule<@cpu.matmul, {reg_nn = 16 : i64}>} {
  return
}

// -----

// expected-error @+1 {{knob 'tile' of template @cpu.matmul expects an integer (i64), got 1.000000e+00 : f32}}
func.func @schedule_float_knob() attributes {s = #int21.schedule<@cpu.matmul, {tile = 1.0 : f32}>} {
  return
}

// -----

// expected-error @+1 {{knob 'reg_n' of template @cpu.matmul expects an integer (i64), got ["a", 1]}}
func.func @schedule_array_knob() attributes {s = #int21.schedule<@cpu.matmul, {reg_n = ["a", 1]}>} {
  return
}

// -----

// expected-error @+1 {{knob 'pack_b' of template @cpu.matmul expects an integer (i64), got true}}
func.func @schedule_bool_knob() attributes {s = #int21.schedule<@cpu.matmul, {pack_b = true}>} {
  return
}

// -----

// expected-error @+1 {{knob 'reg_n' of template @cpu.matmul expects an integer (i64), got 36893488147419103232 : i128}}
func.func @schedule_wide_knob() attributes {s = #int21.schedule<@cpu.matmul, {reg_n = 36893488147419103232 : i128}>} {
  return
}

// -----

// expected-error @+1 {{knob 'pack_b' of template @cpu.matmul = 2 names no alternative (0 to 1)}}
func.func @schedule_no_such_alternative() attributes {s = #int21.schedule<@cpu.matmul, {pack_b = 2 : i64}>} {
  return
}

// -----

func.func @einsum_implicit(%a: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{'int21.einsum' op expects an explicit result ('...->...')}}
  // expected-error @+1 {{'int21.einsum' op failed to infer returned types}}
  %0 = int21.einsum %a {equation = "ij"} : (tensor<2x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @shift_of_floats(%a: tensor<3xf32>) {
  // expected-error @+1 {{'int21.shift_left' op operand #0 must be ranked tensor of 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer values}}
  %0 = int21.shift_left %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @einsum_sizes(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{'int21.einsum' op expects dimension 'j' to have one size, got 3 and 4}}
  // expected-error @+1 {{'int21.einsum' op failed to infer returned types}}
  %0 = int21.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @einsum_rank(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{'int21.einsum' op expects 'ijk' to name all 2 dimensions of its operand}}
  // expected-error @+1 {{'int21.einsum' op failed to infer returned types}}
  %0 = int21.einsum %a {equation = "ijk->i"} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @avg_pool_of_integers(%x: tensor<1x1x4x4xi32>) {
  // expected-error @+1 {{'int21.avg_pool' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = int21.avg_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<1x1x4x4xi32>) -> tensor<1x1x2x2xi32>
  return
}

// -----

func.func @gather_elements_indices_too_wide(%d: tensor<3x4xf32>, %i: tensor<2x5xi64>) {
  // expected-error @+2 {{'int21.gather_elements' op expects indices dimension 1 (5) to be at most the data's (4)}}
  // expected-error @+1 {{'int21.gather_elements' op failed to infer returned types}}
  %0 = int21.gather_elements %d, %i {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2x5xi64>) -> tensor<2x5xf32>
  return
}

// -----

func.func @scatter_elements_shapes(%d: tensor<3x4xf32>, %i: tensor<2x4xi64>, %u: tensor<2x3xf32>) {
  // expected-error @+2 {{'int21.scatter_elements' op expects indices and updates of one shape, got 2x4 and 2x3}}
  // expected-error @+1 {{'int21.scatter_elements' op failed to infer returned types}}
  %0 = int21.scatter_elements %d, %i, %u {axis = 0 : i64, reduction = #int21<scatter_reduction add>} : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @gather_nd_tuple_too_long(%d: tensor<3x4xf32>, %i: tensor<2x3xi64>) {
  // expected-error @+2 {{'int21.gather_nd' op expects index tuples of 1 to 2 entries, got 3}}
  // expected-error @+1 {{'int21.gather_nd' op failed to infer returned types}}
  %0 = int21.gather_nd %d, %i {batch_dims = 0 : i64} : (tensor<3x4xf32>, tensor<2x3xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @scatter_nd_updates(%d: tensor<3x4xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) {
  // expected-error @+2 {{'int21.scatter_nd' op expects updates of shape 2x4, got 2x3}}
  // expected-error @+1 {{'int21.scatter_nd' op failed to infer returned types}}
  %0 = int21.scatter_nd %d, %i, %u {reduction = #int21<scatter_reduction none>} : (tensor<3x4xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @resize_linear_integers(%x: tensor<2x2xi32>) {
  // expected-error @+1 {{'int21.resize' op supports linear interpolation of floats only, got 'i32'}}
  %0 = int21.resize %x {mode = #int21<resize_mode linear>, coordinate_transform = #int21<coordinate_transform half_pixel>, nearest_mode = #int21<nearest_mode floor>, cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, scales = array<f32: 2.0, 2.0>, roi = array<f32>} : tensor<2x2xi32> to tensor<4x4xi32>
  return
}

// -----

func.func @resize_crop_without_roi(%x: tensor<2x2xf32>) {
  // expected-error @+1 {{'int21.resize' op expects 4 roi entries (starts, then ends) with tf_crop_and_resize, got 0}}
  %0 = int21.resize %x {mode = #int21<resize_mode linear>, coordinate_transform = #int21<coordinate_transform tf_crop_and_resize>, nearest_mode = #int21<nearest_mode floor>, cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, scales = array<f32: 2.0, 2.0>, roi = array<f32>} : tensor<2x2xf32> to tensor<4x4xf32>
  return
}

// -----

func.func @resize_sizes_count(%x: tensor<2x?xf32>, %n: index) {
  // expected-error @+1 {{'int21.resize' op expects one size per dynamic extent of the result (2), got 1}}
  %0 = int21.resize %x [%n] {mode = #int21<resize_mode nearest>, coordinate_transform = #int21<coordinate_transform half_pixel>, nearest_mode = #int21<nearest_mode floor>, cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, scales = array<f32>, roi = array<f32>} : tensor<2x?xf32> to tensor<?x?xf32>
  return
}

// -----

func.func @resize_scales_twice(%x: tensor<2x2xf32>, %s: f32) {
  // expected-error @+1 {{'int21.resize' op expects 2 scale values and no scales attribute, got 2 and 2}}
  %0 = int21.resize %x scales(%s, %s) {mode = #int21<resize_mode nearest>, coordinate_transform = #int21<coordinate_transform half_pixel>, nearest_mode = #int21<nearest_mode floor>, cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, scales = array<f32: 2.0, 2.0>, roi = array<f32>} : tensor<2x2xf32> to tensor<4x4xf32>
  return
}

// -----

func.func @topk_k_too_large(%x: tensor<3x4xf32>) {
  // expected-error @+2 {{'int21.topk' op expects k in [0, 4], got 5}}
  // expected-error @+1 {{'int21.topk' op failed to infer returned types}}
  %v, %i = int21.topk %x {k = 5 : i64, axis = 1 : i64, largest = true} : (tensor<3x4xf32>) -> (tensor<3x5xf32>, tensor<3x5xi64>)
  return
}

// -----

func.func @cumsum_axis(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'int21.cumsum' op expects axis in [0, 2), got 2}}
  %0 = int21.cumsum %x {axis = 2 : i64, exclusive = false, reverse = false} : tensor<3x4xf32>
  return
}

// -----

func.func @reshape_sizes(%x: tensor<?x8xf32>, %n: index) {
  // expected-error @+1 {{'int21.reshape' op expects one size per dynamic extent of the result (2), got 1}}
  %0 = int21.reshape %x[%n] : tensor<?x8xf32> to tensor<?x?x4xf32>
  return
}

// -----

func.func @expand_sizes(%x: tensor<1xf32>) {
  // expected-error @+1 {{'int21.expand' op expects one size per dynamic extent of the result (1), got 0}}
  %0 = int21.expand %x : tensor<1xf32> to tensor<?xf32>
  return
}

// -----

func.func @iota_dimension(%n: index) {
  // expected-error @+1 {{'int21.iota' op expects a dimension in [0, 2), got 2}}
  %0 = int21.iota [%n] {dimension = 2 : i64} : tensor<1x?xi64>
  return
}

// -----

func.func @slice_dynamic_size(%x: tensor<4x?xf32>) {
  // expected-error @+2 {{'int21.slice' op expects a size of ? only for a dynamic dimension kept whole, got it for dimension 0}}
  // expected-error @+1 {{'int21.slice' op failed to infer returned types}}
  %0 = int21.slice %x {starts = array<i64: 0, 0>, sizes = array<i64: -9223372036854775808, -9223372036854775808>, steps = array<i64: 1, 1>} : (tensor<4x?xf32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @dynamic_slice_size(%x: tensor<8xf32>, %s: index) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  // expected-error @+1 {{'int21.dynamic_slice' op expects dimension 0 of the result to be its size 3}}
  %0 = int21.dynamic_slice %x [%s] [%c3] [%c1] : tensor<8xf32> to tensor<4xf32>
  return
}

// -----

func.func @dynamic_slice_step(%x: tensor<8xf32>, %s: index, %n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'int21.dynamic_slice' op expects non-zero steps, got 0 for dimension 0}}
  %0 = int21.dynamic_slice %x [%s] [%n] [%c0] : tensor<8xf32> to tensor<?xf32>
  return
}
