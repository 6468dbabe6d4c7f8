// RUN: int21-opt %s | int21-opt | FileCheck %s
// RUN: int21-opt %s --mlir-print-op-generic | int21-opt | FileCheck %s

// Every int21 op, #int21.schedule and #int21<pad_mode> survive a round trip
// through the custom and the generic form.

// CHECK-LABEL: func.func @constant
func.func @constant() -> (tensor<2xi64>, tensor<2x2xf32>, tensor<3xf16>) {
  // CHECK: int21.constant dense<[1, 2]> : tensor<2xi64>
  // CHECK: int21.constant dense<5.000000e-01> : tensor<2x2xf32>
  // CHECK: int21.constant dense_resource<blob> : tensor<3xf16>
  %0 = int21.constant dense<[1, 2]> : tensor<2xi64>
  %1 = int21.constant dense<0.5> : tensor<2x2xf32>
  %2 = int21.constant dense_resource<blob> : tensor<3xf16>
  return %0, %1, %2 : tensor<2xi64>, tensor<2x2xf32>, tensor<3xf16>
}

// CHECK-LABEL: func.func @unary
// CHECK-SAME: ([[X:%.+]]: tensor<2x3xf32>, [[I:%.+]]: tensor<4xi32>, [[B:%.+]]: tensor<5xi1>)
func.func @unary(%x: tensor<2x3xf32>, %i: tensor<4xi32>, %b: tensor<5xi1>) {
  // CHECK: int21.abs [[I]] : tensor<4xi32>
  // CHECK: int21.neg [[X]] : tensor<2x3xf32>
  // CHECK: int21.sign [[I]] : tensor<4xi32>
  // CHECK: int21.relu [[X]] : tensor<2x3xf32>
  // CHECK: int21.exp [[X]] : tensor<2x3xf32>
  // CHECK: int21.log [[X]] : tensor<2x3xf32>
  // CHECK: int21.sqrt [[X]] : tensor<2x3xf32>
  // CHECK: int21.rsqrt [[X]] : tensor<2x3xf32>
  // CHECK: int21.reciprocal [[X]] : tensor<2x3xf32>
  // CHECK: int21.erf [[X]] : tensor<2x3xf32>
  // CHECK: int21.tanh [[X]] : tensor<2x3xf32>
  // CHECK: int21.sigmoid [[X]] : tensor<2x3xf32>
  // CHECK: int21.sin [[X]] : tensor<2x3xf32>
  // CHECK: int21.cos [[X]] : tensor<2x3xf32>
  // CHECK: int21.ceil [[X]] : tensor<2x3xf32>
  // CHECK: int21.floor [[X]] : tensor<2x3xf32>
  // CHECK: int21.round [[X]] : tensor<2x3xf32>
  // CHECK: int21.softplus [[X]] : tensor<2x3xf32>
  // CHECK: int21.hard_swish [[X]] : tensor<2x3xf32>
  // CHECK: int21.not [[B]] : tensor<5xi1>
  %0 = int21.abs %i : tensor<4xi32>
  %1 = int21.neg %x : tensor<2x3xf32>
  %2 = int21.sign %i : tensor<4xi32>
  %3 = int21.relu %x : tensor<2x3xf32>
  %4 = int21.exp %x : tensor<2x3xf32>
  %5 = int21.log %x : tensor<2x3xf32>
  %6 = int21.sqrt %x : tensor<2x3xf32>
  %7 = int21.rsqrt %x : tensor<2x3xf32>
  %8 = int21.reciprocal %x : tensor<2x3xf32>
  %9 = int21.erf %x : tensor<2x3xf32>
  %10 = int21.tanh %x : tensor<2x3xf32>
  %11 = int21.sigmoid %x : tensor<2x3xf32>
  %12 = int21.sin %x : tensor<2x3xf32>
  %13 = int21.cos %x : tensor<2x3xf32>
  %14 = int21.ceil %x : tensor<2x3xf32>
  %15 = int21.floor %x : tensor<2x3xf32>
  %16 = int21.round %x : tensor<2x3xf32>
  %17 = int21.softplus %x : tensor<2x3xf32>
  %18 = int21.hard_swish %x : tensor<2x3xf32>
  %19 = int21.not %b : tensor<5xi1>
  return
}

// CHECK-LABEL: func.func @trigonometry
// CHECK-SAME: ([[X:%.+]]: tensor<2x3xf32>)
func.func @trigonometry(%x: tensor<2x3xf32>) {
  // CHECK: int21.tan [[X]] : tensor<2x3xf32>
  // CHECK: int21.asin [[X]] : tensor<2x3xf32>
  // CHECK: int21.acos [[X]] : tensor<2x3xf32>
  // CHECK: int21.atan [[X]] : tensor<2x3xf32>
  // CHECK: int21.sinh [[X]] : tensor<2x3xf32>
  // CHECK: int21.cosh [[X]] : tensor<2x3xf32>
  // CHECK: int21.asinh [[X]] : tensor<2x3xf32>
  // CHECK: int21.acosh [[X]] : tensor<2x3xf32>
  // CHECK: int21.atanh [[X]] : tensor<2x3xf32>
  %0 = int21.tan %x : tensor<2x3xf32>
  %1 = int21.asin %x : tensor<2x3xf32>
  %2 = int21.acos %x : tensor<2x3xf32>
  %3 = int21.atan %x : tensor<2x3xf32>
  %4 = int21.sinh %x : tensor<2x3xf32>
  %5 = int21.cosh %x : tensor<2x3xf32>
  %6 = int21.asinh %x : tensor<2x3xf32>
  %7 = int21.acosh %x : tensor<2x3xf32>
  %8 = int21.atanh %x : tensor<2x3xf32>
  return
}

// CHECK-LABEL: func.func @shifts
// CHECK-SAME: ([[U:%.+]]: tensor<4xui16>, [[A:%.+]]: tensor<1xui16>, [[I:%.+]]: tensor<2x4xi32>)
func.func @shifts(%u: tensor<4xui16>, %a: tensor<1xui16>, %i: tensor<2x4xi32>) {
  // CHECK: int21.shift_left [[U]], [[A]] : (tensor<4xui16>, tensor<1xui16>) -> tensor<4xui16>
  // CHECK: int21.shift_right [[I]], [[I]] : (tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>
  %0 = int21.shift_left %u, %a : (tensor<4xui16>, tensor<1xui16>) -> tensor<4xui16>
  %1 = int21.shift_right %i, %i : (tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>
  return
}

// CHECK-LABEL: func.func @unary_with_attrs
// CHECK-SAME: ([[X:%.+]]: tensor<2x3xf32>, [[I:%.+]]: tensor<4xi8>)
func.func @unary_with_attrs(%x: tensor<2x3xf32>, %i: tensor<4xi8>) {
  // CHECK: int21.leaky_relu [[X]] {alpha = 1.000000e-01 : f32} : tensor<2x3xf32>
  // CHECK: int21.elu [[X]] {alpha = 1.000000e+00 : f32} : tensor<2x3xf32>
  // CHECK: int21.hard_sigmoid [[X]] {alpha = 2.000000e-01 : f32, beta = 5.000000e-01 : f32} : tensor<2x3xf32>
  // CHECK: int21.clip [[X]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x3xf32>
  // CHECK: int21.clip [[I]] {min = -3.000000e+00 : f64} : tensor<4xi8>
  // CHECK: int21.clip [[X]] : tensor<2x3xf32>
  // CHECK: int21.clip [[X]] {max = 1.000000e+00 : f64, min = 6.000000e+00 : f64} : tensor<2x3xf32>
  %0 = int21.leaky_relu %x {alpha = 0.1 : f32} : tensor<2x3xf32>
  %1 = int21.elu %x {alpha = 1.0 : f32} : tensor<2x3xf32>
  %2 = int21.hard_sigmoid %x {alpha = 0.2 : f32, beta = 0.5 : f32} : tensor<2x3xf32>
  %3 = int21.clip %x {min = 0.0, max = 6.0} : tensor<2x3xf32>
  %4 = int21.clip %i {min = -3.0} : tensor<4xi8>
  %5 = int21.clip %x : tensor<2x3xf32>
  // min > max is valid: every element becomes max (ONNX Clip).
  %6 = int21.clip %x {min = 6.0, max = 1.0} : tensor<2x3xf32>
  return
}

// CHECK-LABEL: func.func @cast
// CHECK-SAME: ([[X:%.+]]: tensor<4xf32>, [[U:%.+]]: tensor<4xui8>)
func.func @cast(%x: tensor<4xf32>, %u: tensor<4xui8>) -> (tensor<4xi64>, tensor<4xf16>) {
  // CHECK: int21.cast [[X]] : tensor<4xf32> to tensor<4xi64>
  // CHECK: int21.cast [[U]] : tensor<4xui8> to tensor<4xf16>
  %0 = int21.cast %x : tensor<4xf32> to tensor<4xi64>
  %1 = int21.cast %u : tensor<4xui8> to tensor<4xf16>
  return %0, %1 : tensor<4xi64>, tensor<4xf16>
}

// CHECK-LABEL: func.func @binary
// CHECK-SAME: ([[X:%.+]]: tensor<2x3xf32>, [[Y:%.+]]: tensor<3xf32>, [[I:%.+]]: tensor<2x1xi64>, [[J:%.+]]: tensor<4xi64>, [[P:%.+]]: tensor<4xi1>, [[Q:%.+]]: tensor<1xi1>)
func.func @binary(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %i: tensor<2x1xi64>,
                  %j: tensor<4xi64>, %p: tensor<4xi1>, %q: tensor<1xi1>) {
  // CHECK: int21.add [[X]], [[Y]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: int21.sub [[Y]], [[X]] : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: int21.mul [[I]], [[J]] : (tensor<2x1xi64>, tensor<4xi64>) -> tensor<2x4xi64>
  // CHECK: int21.div [[I]], [[J]] : (tensor<2x1xi64>, tensor<4xi64>) -> tensor<2x4xi64>
  // CHECK: int21.pow [[X]], [[Y]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: int21.pow [[J]], [[J]] : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  // CHECK: int21.max [[X]], [[X]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: int21.min [[J]], [[J]] : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  // CHECK: int21.mod [[J]], [[I]] : (tensor<4xi64>, tensor<2x1xi64>) -> tensor<2x4xi64>
  // CHECK: int21.and [[P]], [[Q]] : (tensor<4xi1>, tensor<1xi1>) -> tensor<4xi1>
  // CHECK: int21.or [[P]], [[P]] : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: int21.xor [[Q]], [[P]] : (tensor<1xi1>, tensor<4xi1>) -> tensor<4xi1>
  %0 = int21.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = int21.sub %y, %x : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = int21.mul %i, %j : (tensor<2x1xi64>, tensor<4xi64>) -> tensor<2x4xi64>
  %3 = int21.div %i, %j : (tensor<2x1xi64>, tensor<4xi64>) -> tensor<2x4xi64>
  %4 = int21.pow %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %ipow = int21.pow %j, %j : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %5 = int21.max %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = int21.min %j, %j : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %7 = int21.mod %j, %i : (tensor<4xi64>, tensor<2x1xi64>) -> tensor<2x4xi64>
  %8 = int21.and %p, %q : (tensor<4xi1>, tensor<1xi1>) -> tensor<4xi1>
  %9 = int21.or %p, %p : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %10 = int21.xor %q, %p : (tensor<1xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// CHECK-LABEL: func.func @compare_and_where
// CHECK-SAME: ([[X:%.+]]: tensor<2x3xf32>, [[Y:%.+]]: tensor<3xf32>, [[C:%.+]]: tensor<2x1xi1>)
func.func @compare_and_where(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %c: tensor<2x1xi1>) -> tensor<2x3xf32> {
  // CHECK: int21.equal [[X]], [[Y]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: int21.less [[X]], [[Y]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: int21.less_equal [[Y]], [[Y]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  // CHECK: int21.greater [[Y]], [[X]] : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: int21.greater_equal [[X]], [[X]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK: [[W:%.+]] = int21.where [[C]], [[Y]], [[X]] : (tensor<2x1xi1>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: return [[W]]
  %0 = int21.equal %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %1 = int21.less %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %2 = int21.less_equal %y, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %3 = int21.greater %y, %x : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %4 = int21.greater_equal %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %5 = int21.where %c, %y, %x : (tensor<2x1xi1>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %5 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: ([[A:%.+]]: tensor<4x1x8x16xf32>, [[B:%.+]]: tensor<3x16x2xf32>)
func.func @matmul(%a: tensor<4x1x8x16xf32>, %b: tensor<3x16x2xf32>) -> tensor<4x3x8x2xf32> {
  // CHECK: int21.matmul [[A]], [[B]] : (tensor<4x1x8x16xf32>, tensor<3x16x2xf32>) -> tensor<4x3x8x2xf32>
  %0 = int21.matmul %a, %b : (tensor<4x1x8x16xf32>, tensor<3x16x2xf32>) -> tensor<4x3x8x2xf32>
  return %0 : tensor<4x3x8x2xf32>
}

// CHECK-LABEL: func.func @conv
// CHECK-SAME: ([[X:%.+]]: tensor<1x4x8x8xf32>, [[W:%.+]]: tensor<6x2x3x3xf32>, [[B:%.+]]: tensor<6xf32>,
// CHECK-SAME:  [[XI:%.+]]: tensor<1x4x8x8xi32>, [[WI:%.+]]: tensor<6x2x3x3xi32>, [[BI:%.+]]: tensor<6xi32>)
func.func @conv(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>,
                %xi: tensor<1x4x8x8xi32>, %wi: tensor<6x2x3x3xi32>, %bi: tensor<6xi32>) {
  // CHECK: int21.conv [[X]], [[W]], [[B]] {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x4x4xf32>
  // CHECK: int21.conv [[X]], [[W]] {dilations = array<i64: 2, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x4x6xf32>
  // CHECK: int21.conv [[XI]], [[WI]], [[BI]] {{.*}} : (tensor<1x4x8x8xi32>, tensor<6x2x3x3xi32>, tensor<6xi32>) -> tensor<1x6x4x6xi32>
  %0 = int21.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 2 : i64}
      : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x4x4xf32>
  %1 = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 1>, group = 2 : i64}
      : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x4x6xf32>
  %2 = int21.conv %xi, %wi, %bi {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 1>, group = 2 : i64}
      : (tensor<1x4x8x8xi32>, tensor<6x2x3x3xi32>, tensor<6xi32>) -> tensor<1x6x4x6xi32>
  return
}

// CHECK-LABEL: func.func @conv_transpose
// CHECK-SAME: ([[X:%.+]]: tensor<1x4x5x5xf32>, [[W:%.+]]: tensor<4x3x3x3xf32>, [[B:%.+]]: tensor<3xf32>)
func.func @conv_transpose(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x3x10x10xf32> {
  // CHECK: int21.conv_transpose [[X]], [[W]], [[B]] {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x3x10x10xf32>
  %0 = int21.conv_transpose %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x3x10x10xf32>
  return %0 : tensor<1x3x10x10xf32>
}

// CHECK-LABEL: func.func @pooling
// CHECK-SAME: ([[X:%.+]]: tensor<1x2x7x7xf32>, [[U:%.+]]: tensor<1x2x7x7xui8>)
func.func @pooling(%x: tensor<1x2x7x7xf32>, %u: tensor<1x2x7x7xui8>) {
  // CHECK: int21.max_pool [[U]] {{.*}} : (tensor<1x2x7x7xui8>) -> tensor<1x2x3x3xui8>
  %u0 = int21.max_pool %u {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false}
      : (tensor<1x2x7x7xui8>) -> tensor<1x2x3x3xui8>
  // CHECK: int21.max_pool [[X]] {ceil_mode = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32>
  // CHECK: int21.avg_pool [[X]] {ceil_mode = false, count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x7x7xf32>) -> tensor<1x2x7x7xf32>
  %0 = int21.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true}
      : (tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32>
  %1 = int21.avg_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = true}
      : (tensor<1x2x7x7xf32>) -> tensor<1x2x7x7xf32>
  return
}

// CHECK-LABEL: func.func @normalisation
// CHECK-SAME: ([[X:%.+]]: tensor<2x4x8xf32>, [[S:%.+]]: tensor<8xf32>, [[C:%.+]]: tensor<4xf32>)
func.func @normalisation(%x: tensor<2x4x8xf32>, %s: tensor<8xf32>, %c: tensor<4xf32>) {
  // CHECK: int21.softmax [[X]] {axis = 2 : i64} : tensor<2x4x8xf32>
  // CHECK: int21.log_softmax [[X]] {axis = 0 : i64} : tensor<2x4x8xf32>
  // CHECK: int21.layer_norm [[X]], [[S]], [[S]] {axis = 2 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  // CHECK: int21.layer_norm [[X]], [[S]] {axis = 1 : i64, epsilon = 9.99999974E-6 : f32} : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  // CHECK: int21.batch_norm [[X]], [[C]], [[C]], [[C]], [[C]] {epsilon = 9.99999974E-6 : f32} : (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x8xf32>
  %0 = int21.softmax %x {axis = 2 : i64} : tensor<2x4x8xf32>
  %1 = int21.log_softmax %x {axis = 0 : i64} : tensor<2x4x8xf32>
  %2 = int21.layer_norm %x, %s, %s {axis = 2 : i64, epsilon = 1.0e-5 : f32}
      : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %3 = int21.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-5 : f32}
      : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %4 = int21.batch_norm %x, %c, %c, %c, %c {epsilon = 1.0e-5 : f32}
      : (tensor<2x4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x8xf32>
  return
}

// CHECK-LABEL: func.func @reductions
// CHECK-SAME: ([[X:%.+]]: tensor<2x3x4xf32>, [[I:%.+]]: tensor<2x3x4xi32>)
func.func @reductions(%x: tensor<2x3x4xf32>, %i: tensor<2x3x4xi32>) {
  // CHECK: int21.reduce_sum [[X]] {axes = array<i64: 0, 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  // CHECK: int21.reduce_mean [[X]] {axes = array<i64: 1>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  // CHECK: int21.reduce_max [[I]] {axes = array<i64>, keepdims = false} : (tensor<2x3x4xi32>) -> tensor<2x3x4xi32>
  // CHECK: int21.reduce_min [[I]] {axes = array<i64: 0, 1, 2>, keepdims = false} : (tensor<2x3x4xi32>) -> tensor<i32>
  // CHECK: int21.reduce_prod [[X]] {axes = array<i64: 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  // CHECK: int21.argmax [[X]] {axis = 1 : i64, keepdims = true, select_last_index = false} : (tensor<2x3x4xf32>) -> tensor<2x1x4xi64>
  // CHECK: int21.argmin [[I]] {axis = 2 : i64, keepdims = false, select_last_index = true} : (tensor<2x3x4xi32>) -> tensor<2x3xi64>
  %0 = int21.reduce_sum %x {axes = array<i64: 0, 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  %1 = int21.reduce_mean %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %2 = int21.reduce_max %i {axes = array<i64>, keepdims = false} : (tensor<2x3x4xi32>) -> tensor<2x3x4xi32>
  %3 = int21.reduce_min %i {axes = array<i64: 0, 1, 2>, keepdims = false} : (tensor<2x3x4xi32>) -> tensor<i32>
  %4 = int21.reduce_prod %x {axes = array<i64: 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %5 = int21.argmax %x {axis = 1 : i64, keepdims = true, select_last_index = false} : (tensor<2x3x4xf32>) -> tensor<2x1x4xi64>
  %6 = int21.argmin %i {axis = 2 : i64, keepdims = false, select_last_index = true} : (tensor<2x3x4xi32>) -> tensor<2x3xi64>
  return
}

// CHECK-LABEL: func.func @data_movement
// CHECK-SAME: ([[X:%.+]]: tensor<2x3x4xf32>, [[Y:%.+]]: tensor<2x1x4xf32>, [[IDX:%.+]]: tensor<5xi32>)
func.func @data_movement(%x: tensor<2x3x4xf32>, %y: tensor<2x1x4xf32>, %idx: tensor<5xi32>) {
  // CHECK: int21.transpose [[X]] {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  // CHECK: int21.reshape [[X]] : tensor<2x3x4xf32> to tensor<6x4xf32>
  // CHECK: int21.expand [[Y]] : tensor<2x1x4xf32> to tensor<5x2x3x4xf32>
  // CHECK: int21.concat [[X]], [[Y]], [[X]] {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1x4xf32>, tensor<2x3x4xf32>) -> tensor<2x7x4xf32>
  // CHECK: int21.slice [[X]] {sizes = array<i64: 1, 2, 4>, starts = array<i64: 1, 2, 3>, steps = array<i64: 1, -2, -1>} : (tensor<2x3x4xf32>) -> tensor<1x2x4xf32>
  // CHECK: int21.gather [[X]], [[IDX]] {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<5xi32>) -> tensor<2x5x4xf32>
  // CHECK: int21.pad [[X]] {mode = #int21<pad_mode constant>, pads = array<i64: 0, 1, 2, 0, 0, -1>, value = 1.500000e+00 : f64} : (tensor<2x3x4xf32>) -> tensor<2x4x5xf32>
  // CHECK: int21.pad [[X]] {mode = #int21<pad_mode reflect>, pads = array<i64: 1, 0, 0, 1, 0, 0>, value = 0.000000e+00 : f64} : (tensor<2x3x4xf32>) -> tensor<4x3x4xf32>
  // CHECK: int21.pad [[X]] {mode = #int21<pad_mode edge>,
  // CHECK: int21.pad [[X]] {mode = #int21<pad_mode wrap>,
  %0 = int21.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = int21.reshape %x : tensor<2x3x4xf32> to tensor<6x4xf32>
  %2 = int21.expand %y : tensor<2x1x4xf32> to tensor<5x2x3x4xf32>
  %3 = int21.concat %x, %y, %x {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1x4xf32>, tensor<2x3x4xf32>) -> tensor<2x7x4xf32>
  %4 = int21.slice %x {starts = array<i64: 1, 2, 3>, sizes = array<i64: 1, 2, 4>, steps = array<i64: 1, -2, -1>}
      : (tensor<2x3x4xf32>) -> tensor<1x2x4xf32>
  %5 = int21.gather %x, %idx {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<5xi32>) -> tensor<2x5x4xf32>
  %6 = int21.pad %x {pads = array<i64: 0, 1, 2, 0, 0, -1>, mode = #int21<pad_mode constant>, value = 1.5}
      : (tensor<2x3x4xf32>) -> tensor<2x4x5xf32>
  %7 = int21.pad %x {pads = array<i64: 1, 0, 0, 1, 0, 0>, mode = #int21<pad_mode reflect>, value = 0.0}
      : (tensor<2x3x4xf32>) -> tensor<4x3x4xf32>
  %8 = int21.pad %x {pads = array<i64: 0, 0, 0, 0, 0, 0>, mode = #int21<pad_mode edge>, value = 0.0}
      : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %9 = int21.pad %x {pads = array<i64: 0, 0, 0, 0, 0, 0>, mode = #int21<pad_mode wrap>, value = 0.0}
      : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// CHECK-LABEL: func.func @fusion_group
// CHECK-SAME: ([[A:%.+]]: tensor<4x8xf32>, [[B:%.+]]: tensor<8x2xf32>)
func.func @fusion_group(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  // CHECK: [[G:%.+]]:2 = int21.fusion_group schedule(<@cpu.matmul, {pack_b = 1 : i64, par_m = 64 : i64}>) {
  // CHECK-NEXT: [[M:%.+]] = int21.matmul [[A]], [[B]]
  // CHECK-NEXT: [[R:%.+]] = int21.relu [[M]]
  // CHECK-NEXT: int21.yield [[M]], [[R]] : tensor<4x2xf32>, tensor<4x2xf32>
  // CHECK-NEXT: } : tensor<4x2xf32>, tensor<4x2xf32>
  %0:2 = int21.fusion_group schedule(#int21.schedule<@cpu.matmul, {par_m = 64 : i64, pack_b = 1 : i64}>) {
    %1 = int21.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
    %2 = int21.relu %1 : tensor<4x2xf32>
    int21.yield %1, %2 : tensor<4x2xf32>, tensor<4x2xf32>
  } : tensor<4x2xf32>, tensor<4x2xf32>
  // CHECK: return [[G]]#0, [[G]]#1
  return %0#0, %0#1 : tensor<4x2xf32>, tensor<4x2xf32>
}

// A group without a schedule or results; the empty yield is implicit.
// CHECK-LABEL: func.func @fusion_group_no_results
// CHECK: int21.fusion_group {
// CHECK-NEXT: int21.relu
// CHECK-NEXT: }
// CHECK-NOT: :
// CHECK: return
func.func @fusion_group_no_results(%a: tensor<4xf32>) {
  int21.fusion_group {
    %0 = int21.relu %a : tensor<4xf32>
  }
  return
}

// The schedule attribute also round-trips outside a fusion group.
// CHECK-LABEL: func.func @schedule_attr
// CHECK-SAME: int21.s = #int21.schedule<@gpu.reduction_2d, {blk_0 = 16 : i64}>
func.func @schedule_attr() attributes {int21.s = #int21.schedule<@gpu.reduction_2d, {blk_0 = 16 : i64}>} {
  return
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x04000000003C00400042"
    }
  }
#-}

// Dynamic extents: broadcast against 1 and against a static extent, products
// with dynamic rows, windows over dynamic batch and spatial extents.
// CHECK-LABEL: func.func @dynamic
func.func @dynamic(%x: tensor<?x3xf32>, %y: tensor<1x3xf32>, %z: tensor<3xf32>,
                   %w: tensor<3x5xf32>, %img: tensor<?x2x?x?xf32>,
                   %k: tensor<4x2x3x3xf32>) {
  // CHECK: int21.add {{.*}} -> tensor<?x3xf32>
  %0 = int21.add %x, %y : (tensor<?x3xf32>, tensor<1x3xf32>) -> tensor<?x3xf32>
  // CHECK: int21.mul {{.*}} -> tensor<?x3xf32>
  %1 = int21.mul %z, %0 : (tensor<3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  // CHECK: int21.matmul {{.*}} -> tensor<?x5xf32>
  %2 = int21.matmul %1, %w : (tensor<?x3xf32>, tensor<3x5xf32>) -> tensor<?x5xf32>
  // CHECK: int21.conv {{.*}} -> tensor<?x4x?x?xf32>
  %3 = int21.conv %img, %k {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<?x2x?x?xf32>, tensor<4x2x3x3xf32>) -> tensor<?x4x?x?xf32>
  // CHECK: int21.max_pool {{.*}} -> tensor<?x4x?x?xf32>
  %4 = int21.max_pool %3 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false}
      : (tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32>
  // CHECK: int21.reduce_mean {{.*}} -> tensor<?x4x1x1xf32>
  %5 = int21.reduce_mean %4 {axes = array<i64: 2, 3>, keepdims = true} : (tensor<?x4x?x?xf32>) -> tensor<?x4x1x1xf32>
  return
}
