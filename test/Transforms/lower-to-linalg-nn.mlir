// RUN: int21-opt %s -int21-lower-to-linalg -split-input-file -verify-diagnostics | FileCheck %s
// RUN: int21-opt %s -int21-lower-to-linalg=filter-lanes=false -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=NAMED

// A 2-D convolution pads with zeros, starts from the broadcast bias and is
// one linalg.conv_2d_nchw_fchw with the strides and dilations.

// CHECK-DAG: [[CHAN:#.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-DAG: [[ID:#.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv_bias_pads_strides
// CHECK-SAME: ([[X:%.+]]: tensor<1x3x8x8xf32>, [[W:%.+]]: tensor<4x3x3x3xf32>, [[B:%.+]]: tensor<4xf32>)
// CHECK: [[ZERO:%.+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[PAD:%.+]] = tensor.pad [[X]] low[0, 0, 1, 2] high[0, 0, 1, 2]
// CHECK: tensor.yield [[ZERO]]
// CHECK: [[E:%.+]] = tensor.empty() : tensor<1x4x4x4xf32>
// CHECK: [[INIT:%.+]] = linalg.generic {indexing_maps = [[[CHAN]], [[ID]]]
// CHECK-SAME: ins([[B]] : tensor<4xf32>) outs([[E]] : tensor<1x4x4x4xf32>)
// CHECK: [[R:%.+]] = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
// CHECK-SAME: ins([[PAD]], [[W]] : tensor<1x3x10x12xf32>, tensor<4x3x3x3xf32>) outs([[INIT]] : tensor<1x4x4x4xf32>)
// CHECK: return [[R]]
func.func @conv_bias_pads_strides(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = int21.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 2, 1, 2>, dilations = array<i64: 1, 2>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// Depthwise (group == C == F): no pad, zeros as the init, the weight drops
// its unit dimension; a generic with the channels before the rows
// (n, c, oh, ow, kh, kw), as the CPU template @cpu.depthwise_conv2d_nchw
// tiles it. Strides and dilations scale the input's window terms.

// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>
// CHECK-DAG: #[[WT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d4, d5)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[IN2:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4 * 2, d3 * 2 + d5 * 2)>
// CHECK-LABEL: func.func @conv_depthwise
// CHECK-SAME: ([[X:%.+]]: tensor<1x4x8x8xf32>, [[W:%.+]]: tensor<4x1x3x3xf32>)
// CHECK-NOT: tensor.pad
// CHECK: [[INIT:%.+]] = linalg.fill
// CHECK: [[W3:%.+]] = tensor.collapse_shape [[W]] {{\[}}[0], [1, 2], [3]] : tensor<4x1x3x3xf32> into tensor<4x3x3xf32>
// CHECK: [[R:%.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[WT]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME: ins([[X]], [[W3]] : tensor<1x4x8x8xf32>, tensor<4x3x3xf32>) outs([[INIT]] : tensor<1x4x6x6xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: return [[R]]
func.func @conv_depthwise(%x: tensor<1x4x8x8xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// CHECK-LABEL: func.func @conv_depthwise_strided_dilated
// CHECK: linalg.generic {indexing_maps = [#[[IN2]], #[[WT]], #[[OUT]]]
func.func @conv_depthwise_strided_dilated(%x: tensor<1x4x9x9xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %0 = int21.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, group = 4 : i64} : (tensor<1x4x9x9xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}

// -----

// Depthwise with a constant weight, 16 channels a block, a 5x5 window and
// rows narrower than a vector (or strided): the channels along the vectors.
// The input is transposed into blocks [N, C/16, H, W, 16] and padded after,
// the weight into [C/16, KH, KW, 16]; the generic (n, cb, ci, oh, ow, kh,
// kw) writes the NCHW output as its view [N, C/16, 16, OH, OW], starting
// from the bias. With filter-lanes=false (GPU targets), the row form.
// NAMED-LABEL: func.func @conv_depthwise_channel_lanes
// NAMED: tensor.pad %{{.*}} low[0, 0, 2, 1] high[0, 0, 2, 1]
// NAMED: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-DAG: #[[LIN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d3 * 2 + d5, d4 * 2 + d6, d2)>
// CHECK-DAG: #[[LW:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d5, d6, d2)>
// CHECK-DAG: #[[LOUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @conv_depthwise_channel_lanes
// CHECK-SAME: ([[X:%.+]]: tensor<1x32x7x7xf32>, [[B:%.+]]: tensor<32xf32>)
// CHECK: [[SPLIT:%.+]] = tensor.expand_shape [[X]] {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 16, 7, 7]
// CHECK: [[PACK:%.+]] = linalg.transpose ins([[SPLIT]] : tensor<1x2x16x7x7xf32>) outs({{.*}} : tensor<1x2x7x7x16xf32>) permutation = [0, 1, 3, 4, 2]
// CHECK: [[PAD:%.+]] = tensor.pad [[PACK]] low[0, 0, 2, 1, 0] high[0, 0, 2, 1, 0]
// CHECK: tensor<1x2x7x7x16xf32> to tensor<1x2x11x9x16xf32>
// CHECK: [[WB:%.+]] = linalg.transpose ins({{.*}} : tensor<2x16x5x5xf32>) outs({{.*}} : tensor<2x5x5x16xf32>) permutation = [0, 2, 3, 1]
// CHECK: [[BB:%.+]] = tensor.expand_shape [[B]] {{\[}}[0, 1]] output_shape [2, 16]
// CHECK: [[INIT:%.+]] = linalg.generic {{.*}} ins([[BB]] : tensor<2x16xf32>) outs({{.*}} : tensor<1x2x16x4x3xf32>)
// CHECK: [[R:%.+]] = linalg.generic {indexing_maps = [#[[LIN]], #[[LW]], #[[LOUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME: ins([[PAD]], [[WB]] : tensor<1x2x11x9x16xf32>, tensor<2x5x5x16xf32>) outs([[INIT]] : tensor<1x2x16x4x3xf32>)
// CHECK: [[NCHW:%.+]] = tensor.collapse_shape [[R]] {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x16x4x3xf32> into tensor<1x32x4x3xf32>
// CHECK: return [[NCHW]]
func.func @conv_depthwise_channel_lanes(%x: tensor<1x32x7x7xf32>, %b: tensor<32xf32>) -> tensor<1x32x4x3xf32> {
  %w = arith.constant dense<0.5> : tensor<32x1x5x5xf32>
  %0 = int21.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 2, 1, 2, 1>, dilations = array<i64: 1, 1>, group = 32 : i64} : (tensor<1x32x7x7xf32>, tensor<32x1x5x5xf32>, tensor<32xf32>) -> tensor<1x32x4x3xf32>
  return %0 : tensor<1x32x4x3xf32>
}

// Maps of dynamic extents: the channels along the vectors whatever the
// window, in blocks of 8 where 16 do not divide them; the transpose's and
// the output's extents are the input's and the result's.
// CHECK-LABEL: func.func @conv_depthwise_channel_lanes_dynamic
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] output_shape [%{{.*}}, 3, 8, %{{.*}}, %{{.*}}] : tensor<?x24x?x?xf32> into tensor<?x3x8x?x?xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<?x3x8x?x?xf32>) outs(%{{.*}} : tensor<?x3x?x?x8xf32>) permutation = [0, 1, 3, 4, 2]
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 1, 0] high[0, 0, 1, 1, 0]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME: outs(%{{.*}} : tensor<?x3x8x?x?xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] : tensor<?x3x8x?x?xf32> into tensor<?x24x?x?xf32>
func.func @conv_depthwise_channel_lanes_dynamic(%x: tensor<?x24x?x?xf32>, %b: tensor<24xf32>) -> tensor<?x24x?x?xf32> {
  %w = arith.constant dense<0.5> : tensor<24x1x3x3xf32>
  %0 = int21.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 24 : i64} : (tensor<?x24x?x?xf32>, tensor<24x1x3x3xf32>, tensor<24xf32>) -> tensor<?x24x?x?xf32>
  return %0 : tensor<?x24x?x?xf32>
}

// -----

// A pointwise convolution of one image on a map of dynamic extents with few
// channels (16): the pixels' product, weight [F, C] x input [C, H*W], its
// pixels a dynamic extent, expanded back with the input's H and W; with
// many (144), the filter-lanes convolution.
// The batch matmul's maps (below): the weight's shared by the batch.
// CHECK-DAG: affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-DAG: affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-LABEL: func.func @conv_pointwise_dynamic_map
// CHECK: %[[H:.*]] = tensor.dim %[[X:.*]], %c2
// CHECK: %[[W:.*]] = tensor.dim %[[X]], %c3
// CHECK: %[[IN:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2, 3]] : tensor<1x16x?x?xf32> into tensor<16x?xf32>
// CHECK: tensor.empty(%{{.*}}) : tensor<96x?xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %[[IN]] : tensor<96x16xf32>, tensor<16x?xf32>) outs(%{{.*}} : tensor<96x?xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2, 3]] output_shape [1, 96, %[[H]], %[[W]]] : tensor<96x?xf32> into tensor<1x96x?x?xf32>
// CHECK-LABEL: func.func @conv_pointwise_dynamic_map_wide
// CHECK-NOT: linalg.matmul
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// NAMED-LABEL: func.func @conv_pointwise_dynamic_map_wide
// NAMED: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x144xf32>, tensor<144x?xf32>)
func.func @conv_pointwise_dynamic_map(%x: tensor<1x16x?x?xf32>, %b: tensor<96xf32>) -> tensor<1x96x?x?xf32> {
  %w = arith.constant dense<0.5> : tensor<96x16x1x1xf32>
  %0 = int21.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x16x?x?xf32>, tensor<96x16x1x1xf32>, tensor<96xf32>) -> tensor<1x96x?x?xf32>
  return %0 : tensor<1x96x?x?xf32>
}

func.func @conv_pointwise_dynamic_map_wide(%x: tensor<1x144x?x?xf32>) -> tensor<1x32x?x?xf32> {
  %w = arith.constant dense<0.5> : tensor<32x144x1x1xf32>
  %0 = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x144x?x?xf32>, tensor<32x144x1x1xf32>) -> tensor<1x32x?x?xf32>
  return %0 : tensor<1x32x?x?xf32>
}

// A pointwise convolution of a dynamic batch on maps of any extents with few
// channels (24): one batch matmul whose weight [F, C] every image's
// [C, H*W] shares (no copy of it per image), from the broadcast bias,
// expanded back with the input's N, H and W; a 1x1 map (a
// squeeze-excitation's layer) is the product of the batch's rows [N, C]
// with the weight's transpose.
// CHECK-LABEL: func.func @conv_pointwise_dynamic_batch
// CHECK: %[[N:.*]] = tensor.dim %[[X:.*]], %c0
// CHECK: %[[H:.*]] = tensor.dim %[[X]], %c2
// CHECK: %[[W:.*]] = tensor.dim %[[X]], %c3
// CHECK: %[[IN:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1], [2, 3]] : tensor<?x24x?x?xf32> into tensor<?x24x?xf32>
// CHECK: linalg.batch_matmul indexing_maps = [{{.*}}] ins(%{{.*}}, %[[IN]] : tensor<48x24xf32>, tensor<?x24x?xf32>) outs(%{{.*}} : tensor<?x48x?xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3]] output_shape [%[[N]], 48, %[[H]], %[[W]]] : tensor<?x48x?xf32> into tensor<?x48x?x?xf32>
// CHECK-LABEL: func.func @conv_pointwise_dynamic_batch_map_of_one
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<?x48x1x1xf32> into tensor<?x48xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x48xf32>, tensor<48x12xf32>) outs(%{{.*}} : tensor<?x12xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2, 3]] output_shape [%{{.*}}, 12, 1, 1] : tensor<?x12xf32> into tensor<?x12x1x1xf32>
func.func @conv_pointwise_dynamic_batch(%x: tensor<?x24x?x?xf32>, %b: tensor<48xf32>) -> tensor<?x48x?x?xf32> {
  %w = arith.constant dense<0.5> : tensor<48x24x1x1xf32>
  %0 = int21.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x24x?x?xf32>, tensor<48x24x1x1xf32>, tensor<48xf32>) -> tensor<?x48x?x?xf32>
  return %0 : tensor<?x48x?x?xf32>
}

func.func @conv_pointwise_dynamic_batch_map_of_one(%x: tensor<?x48x1x1xf32>, %b: tensor<12xf32>) -> tensor<?x12x1x1xf32> {
  %w = arith.constant dense<0.5> : tensor<12x48x1x1xf32>
  %0 = int21.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x48x1x1xf32>, tensor<12x48x1x1xf32>, tensor<12xf32>) -> tensor<?x12x1x1xf32>
  return %0 : tensor<?x12x1x1xf32>
}

// A 3x3 window, or 8 channels a block: the row form.
// CHECK-LABEL: func.func @conv_depthwise_rows
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK: return
func.func @conv_depthwise_rows(%x: tensor<1x32x7x7xf32>, %y: tensor<1x24x7x7xf32>) -> (tensor<1x32x7x7xf32>, tensor<1x24x7x7xf32>) {
  %w = arith.constant dense<0.5> : tensor<32x1x3x3xf32>
  %0 = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 32 : i64} : (tensor<1x32x7x7xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x7x7xf32>
  %v = arith.constant dense<0.5> : tensor<24x1x5x5xf32>
  %1 = int21.conv %y, %v {strides = array<i64: 1, 1>, pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 1, 1>, group = 24 : i64} : (tensor<1x24x7x7xf32>, tensor<24x1x5x5xf32>) -> tensor<1x24x7x7xf32>
  return %0, %1 : tensor<1x32x7x7xf32>, tensor<1x24x7x7xf32>
}

// -----

// Other groupings are one generic over (n, g, f, oh, ow, c, kh, kw) on the
// channel dimensions split into [G, C / G]: the input split before it is
// padded, the bias broadcast into the split output, the result collapsed
// back to NCHW.

// CHECK-DAG: [[BIAS:#.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2)>
// CHECK-DAG: [[IN:#.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
// CHECK-DAG: [[WT:#.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
// CHECK-DAG: [[OUT:#.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @conv_grouped
// CHECK-SAME: ([[X:%.+]]: tensor<1x4x8x8xf32>, [[W:%.+]]: tensor<6x2x3x3xf32>, [[B:%.+]]: tensor<6xf32>)
// CHECK: [[XG:%.+]] = tensor.expand_shape [[X]] {{.*}} into tensor<1x2x2x8x8xf32>
// CHECK: [[P:%.+]] = tensor.pad [[XG]] low[0, 0, 0, 1, 0] high[0, 0, 0, 1, 0]
// CHECK: [[WG:%.+]] = tensor.expand_shape [[W]] {{.*}} into tensor<2x3x2x3x3xf32>
// CHECK: [[BG:%.+]] = tensor.expand_shape [[B]] {{.*}} into tensor<2x3xf32>
// CHECK: [[INIT:%.+]] = linalg.generic {indexing_maps = [[[BIAS]], {{.*}}]{{.*}} ins([[BG]] : tensor<2x3xf32>) outs({{.*}} : tensor<1x2x3x8x6xf32>)
// CHECK: [[C:%.+]] = linalg.generic {indexing_maps = [[[IN]], [[WT]], [[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins([[P]], [[WG]] : {{.*}}) outs([[INIT]] : tensor<1x2x3x8x6xf32>)
// CHECK: [[R:%.+]] = tensor.collapse_shape [[C]] {{.*}} into tensor<1x6x8x6xf32>
// CHECK: return [[R]]
func.func @conv_grouped(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x8x6xf32> {
  %0 = int21.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 0, 1, 0>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x8x6xf32>
  return %0 : tensor<1x6x8x6xf32>
}

// -----

// In a fusion group the grouped convolution's epilogue (ReLU, a residual
// add) runs over [N, G, F, OH, OW], the other operand expanded to it and its
// init a tensor.empty of that shape, and the collapse comes last: the
// template tiles the epilogue and the convolution alike.

// CHECK-LABEL: func.func @conv_grouped_epilogue
// CHECK: int21.fusion_group
// CHECK: [[C:%.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-NOT: tensor.collapse_shape
// CHECK: tensor.empty() : tensor<1x2x3x6x6xf32>
// CHECK: [[A:%.+]] = linalg.generic {{.*}} ins([[C]], {{.*}} : tensor<1x2x3x6x6xf32>, tensor<1x2x3x6x6xf32>) outs({{.*}} : tensor<1x2x3x6x6xf32>)
// CHECK: arith.addf
// CHECK: arith.cmpf olt
// CHECK-NEXT: arith.select
// CHECK: [[R:%.+]] = tensor.collapse_shape [[A]] {{.*}} into tensor<1x6x6x6xf32>
// CHECK-NEXT: int21.yield [[R]]
func.func @conv_grouped_epilogue(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %r: tensor<1x6x6x6xf32>) -> tensor<1x6x6x6xf32> {
  %0 = int21.fusion_group {
    %c = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
    %a = int21.add %c, %r : (tensor<1x6x6x6xf32>, tensor<1x6x6x6xf32>) -> tensor<1x6x6x6xf32>
    %y = int21.relu %a : tensor<1x6x6x6xf32>
    int21.yield %y : tensor<1x6x6x6xf32>
  } : tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

// 1-D (and 3-D) convolutions are one generic over (n, g, f, o, c, k).

// CHECK-DAG: [[IN:#.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d3 * 2 + d5 * 3)>
// CHECK-DAG: [[WT:#.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>
// CHECK-DAG: [[OUT:#.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv_1d
// CHECK: linalg.generic {indexing_maps = [[[IN]], [[WT]], [[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @conv_1d(%x: tensor<1x2x16xf32>, %w: tensor<3x2x3xf32>) -> tensor<1x3x5xf32> {
  %0 = int21.conv %x, %w {strides = array<i64: 2>, pads = array<i64: 0, 0>, dilations = array<i64: 3>, group = 1 : i64} : (tensor<1x2x16xf32>, tensor<3x2x3xf32>) -> tensor<1x3x5xf32>
  return %0 : tensor<1x3x5xf32>
}

// -----

// A transposed convolution inserts stride - 1 zeros between input elements
// (a strided insert_slice), flips the kernel and convolves with stride 1.

// CHECK-DAG: [[FLIP:#.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0 * 2 + d2, d1, -d3 + 2, -d4 + 2)>
// CHECK-LABEL: func.func @conv_transpose
// CHECK-SAME: ([[X:%.+]]: tensor<1x2x3x3xf32>, [[W:%.+]]: tensor<2x3x3x3xf32>, [[B:%.+]]: tensor<3xf32>)
// CHECK: [[Z:%.+]] = linalg.fill {{.*}} -> tensor<1x2x7x7xf32>
// CHECK: [[D:%.+]] = tensor.insert_slice [[X]] into [[Z]][0, 0, 1, 1] [1, 2, 3, 3] [1, 1, 2, 2]
// CHECK: [[WF:%.+]] = linalg.generic {indexing_maps = [[[FLIP]], {{.*}}]} ins([[W]] : tensor<2x3x3x3xf32>) outs({{.*}} : tensor<1x3x2x3x3xf32>)
// CHECK: linalg.generic {{.*}} ins([[B]] : tensor<3xf32>)
// CHECK: linalg.generic {{.*}} ins({{.*}}, [[WF]] : tensor<1x1x2x7x7xf32>, tensor<1x3x2x3x3xf32>)
func.func @conv_transpose(%x: tensor<1x2x3x3xf32>, %w: tensor<2x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x3x5x5xf32> {
  %0 = int21.conv_transpose %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>, tensor<3xf32>) -> tensor<1x3x5x5xf32>
  return %0 : tensor<1x3x5x5xf32>
}

// -----

// Max pooling pads with -inf; ceil_mode pads one more row and column at the
// end so that the last window fits (6 + 1 + 1 + 1 = 9 = 2 * 3 + 3). The pool
// is a generic over (n, c, oh, ow, kh, kw), the form of a depthwise
// convolution with the window in place of the weight.

// CHECK-DAG: [[IN:#.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK-DAG: [[KW:#.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: [[OUT:#.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @max_pool_ceil
// CHECK-SAME: ([[X:%.+]]: tensor<1x2x6x6xf32>)
// CHECK: [[NEG:%.+]] = arith.constant 0xFF800000 : f32
// CHECK: [[PAD:%.+]] = tensor.pad [[X]] low[0, 0, 1, 1] high[0, 0, 2, 2]
// CHECK: tensor.yield [[NEG]]
// CHECK: [[INIT:%.+]] = linalg.fill {{.*}} -> tensor<1x2x4x4xf32>
// CHECK: [[WIN:%.+]] = tensor.empty() : tensor<3x3xf32>
// CHECK: [[R:%.+]] = linalg.generic {indexing_maps = [[[IN]], [[KW]], [[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME: ins([[PAD]], [[WIN]] : tensor<1x2x9x9xf32>, tensor<3x3xf32>) outs([[INIT]] : tensor<1x2x4x4xf32>)
// CHECK: arith.maximumf
// CHECK: return [[R]]
func.func @max_pool_ceil(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x4x4xf32> {
  %0 = int21.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x2x6x6xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// Integer max pooling pads with the smallest value of the type (0 for
// unsigned, -128 for i8) and takes the generic form, whose maximum reads
// the integers as the type says.

// CHECK-LABEL: func.func @max_pool_integers
// CHECK: [[LOW:%.+]] = arith.constant 0 : i8
// CHECK: tensor.pad
// CHECK: tensor.yield [[LOW]]
// CHECK: linalg.generic
// CHECK: arith.maxui
// CHECK: [[SLOW:%.+]] = arith.constant -128 : i8
// CHECK: tensor.pad
// CHECK: tensor.yield [[SLOW]]
// CHECK: linalg.generic
// CHECK: arith.maxsi
func.func @max_pool_integers(%x: tensor<1x1x4x4xui8>, %y: tensor<1x1x4x4xi8>) -> (tensor<1x1x2x2xui8>, tensor<1x1x2x2xi8>) {
  %0 = int21.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xui8>) -> tensor<1x1x2x2xui8>
  %1 = int21.max_pool %y {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xi8>) -> tensor<1x1x2x2xi8>
  return %0, %1 : tensor<1x1x2x2xui8>, tensor<1x1x2x2xi8>
}

// -----

// Integer convolution (ConvInteger's i32 operands): integer zeros pad and
// initialise; the grouped generic form multiplies and adds integers.

// CHECK-LABEL: func.func @conv_integers
// CHECK: [[ZERO:%.+]] = arith.constant 0 : i32
// CHECK: tensor.pad
// CHECK: tensor.yield [[ZERO]]
// CHECK: linalg.fill
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-SAME: tensor<1x2x6x6xi32>, tensor<2x2x3x3xi32>
// CHECK: linalg.generic
// CHECK: arith.muli
// CHECK: arith.addi
func.func @conv_integers(%x: tensor<1x2x4x4xi32>, %w: tensor<2x2x3x3xi32>, %x3: tensor<1x2x4x4x4xi32>, %w3: tensor<2x2x3x3x3xi32>) -> (tensor<1x2x4x4xi32>, tensor<1x2x2x2x2xi32>) {
  %0 = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x2x4x4xi32>, tensor<2x2x3x3xi32>) -> tensor<1x2x4x4xi32>
  %1 = int21.conv %x3, %w3 {strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, group = 1 : i64} : (tensor<1x2x4x4x4xi32>, tensor<2x2x3x3x3xi32>) -> tensor<1x2x2x2x2xi32>
  return %0, %1 : tensor<1x2x4x4xi32>, tensor<1x2x2x2x2xi32>
}

// -----

// Average pooling without the pads in the count: sums, then a division by
// a constant tensor of window sizes (4 in corners, 6 on edges, 9 inside).

// CHECK-DAG: [[SPATIAL:#.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func.func @avg_pool_exclude_pad
// CHECK: [[S:%.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK: arith.addf
// CHECK: [[N:%.+]] = arith.constant dense<{{\[}}[4.000000e+00, 6.000000e+00, 4.000000e+00], [6.000000e+00, 9.000000e+00, 6.000000e+00], [4.000000e+00, 6.000000e+00, 4.000000e+00]]> : tensor<3x3xf32>
// CHECK: linalg.generic {indexing_maps = [{{.*}}, [[SPATIAL]], {{.*}}]
// CHECK-SAME: ins([[S]], [[N]] : tensor<1x1x3x3xf32>, tensor<3x3xf32>)
// CHECK: arith.divf
func.func @avg_pool_exclude_pad(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %0 = int21.avg_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// With every window the same size the divisor is one 0-D constant; 1-D
// pools are a generic whose window operand only gives the reduction its
// range.

// CHECK-DAG: [[IN:#.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2 + d3)>
// CHECK-DAG: [[WIN:#.+]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-DAG: [[SCALAR:#.+]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-LABEL: func.func @avg_pool_1d
// CHECK: [[S:%.+]] = linalg.generic {indexing_maps = [[[IN]], [[WIN]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK: arith.addf
// CHECK: [[TWO:%.+]] = arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK: linalg.generic {indexing_maps = [{{.*}}, [[SCALAR]], {{.*}}]
// CHECK-SAME: ins([[S]], [[TWO]] : tensor<1x1x3xf32>, tensor<f32>)
// CHECK: arith.divf
func.func @avg_pool_1d(%x: tensor<1x1x6xf32>) -> tensor<1x1x3xf32> {
  %0 = int21.avg_pool %x {kernel_shape = array<i64: 2>, strides = array<i64: 2>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, ceil_mode = false, count_include_pad = true} : (tensor<1x1x6xf32>) -> tensor<1x1x3xf32>
  return %0 : tensor<1x1x3xf32>
}

// -----

// CHECK-DAG: [[ID:#.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: [[CHAN:#.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @batch_norm
// CHECK-SAME: ([[X:%.+]]: tensor<2x3x4xf32>, [[S:%.+]]: tensor<3xf32>, [[B:%.+]]: tensor<3xf32>, [[M:%.+]]: tensor<3xf32>, [[V:%.+]]: tensor<3xf32>)
// CHECK: linalg.generic {indexing_maps = [[[ID]], [[CHAN]], [[CHAN]], [[CHAN]], [[CHAN]], [[ID]]]
// CHECK-SAME: ins([[X]], [[S]], [[B]], [[M]], [[V]] :
// CHECK: ^bb0([[XV:%.+]]: f32, [[SV:%.+]]: f32, [[BV:%.+]]: f32, [[MV:%.+]]: f32, [[VV:%.+]]: f32, {{.*}}):
// CHECK: [[EPS:%.+]] = arith.constant 9.99999974E-6 : f32
// CHECK: [[VE:%.+]] = arith.addf [[VV]], [[EPS]]
// CHECK: [[SD:%.+]] = math.sqrt [[VE]]
// CHECK: [[D:%.+]] = arith.subf [[XV]], [[MV]]
// CHECK: [[N:%.+]] = arith.divf [[D]], [[SD]]
// CHECK: [[SC:%.+]] = arith.mulf [[N]], [[SV]]
// CHECK: [[R:%.+]] = arith.addf [[SC]], [[BV]]
// CHECK: linalg.yield [[R]]
func.func @batch_norm(%x: tensor<2x3x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x4xf32> {
  %0 = int21.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-5 : f32} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Layer norm over the last two axes: a sum, a sum of squared deviations
// (both reductions to [2]), then one normalising generic; the scale of
// shape [4] broadcasts over the trailing dimension only.

// CHECK-DAG: [[ID:#.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: [[OUTER:#.+]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: [[LAST:#.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: [[TRAIL:#.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: ([[X:%.+]]: tensor<2x3x4xf32>, [[S:%.+]]: tensor<4xf32>, [[B:%.+]]: tensor<3x4xf32>)
// CHECK: [[SUM:%.+]] = linalg.generic {indexing_maps = [[[ID]], [[OUTER]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK-SAME: ins([[X]] : tensor<2x3x4xf32>) outs({{.*}} : tensor<2xf32>)
// CHECK: [[SQ:%.+]] = linalg.generic {indexing_maps = [[[ID]], [[OUTER]], [[OUTER]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK-SAME: ins([[X]], [[SUM]] :
// CHECK: arith.constant 1.200000e+01 : f32
// CHECK: arith.mulf
// CHECK: [[R:%.+]] = linalg.generic {indexing_maps = [[[ID]], [[OUTER]], [[OUTER]], [[LAST]], [[TRAIL]], [[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins([[X]], [[SUM]], [[SQ]], [[S]], [[B]] :
// CHECK: math.sqrt
// CHECK: return [[R]]
func.func @layer_norm(%x: tensor<2x3x4xf32>, %s: tensor<4xf32>, %b: tensor<3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = int21.layer_norm %x, %s, %b {axis = 1 : i64, epsilon = 1.0e-5 : f32} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Argmax: one reduction generic with a value and an index output; a strict
// comparison keeps the first maximum; keepdims reshapes the indices.

// CHECK-DAG: [[ID:#.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: [[ROW:#.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @argmax_keepdims
// CHECK: [[NEG:%.+]] = arith.constant 0xFF800000 : f32
// CHECK: [[V:%.+]] = linalg.fill ins([[NEG]] : f32) {{.*}} -> tensor<2xf32>
// CHECK: [[I:%.+]] = linalg.fill {{.*}} -> tensor<2xi64>
// CHECK: [[R:%.+]]:2 = linalg.generic {indexing_maps = [[[ID]], [[ROW]], [[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: outs([[V]], [[I]] : tensor<2xf32>, tensor<2xi64>)
// CHECK: ^bb0([[X:%.+]]: f32, [[BEST:%.+]]: f32, [[BI:%.+]]: i64):
// CHECK: [[IDX:%.+]] = linalg.index 1
// CHECK: [[IDX64:%.+]] = arith.index_cast [[IDX]] : index to i64
// CHECK: [[GT:%.+]] = arith.cmpf ogt, [[X]], [[BEST]]
// CHECK: [[NV:%.+]] = arith.select [[GT]], [[X]], [[BEST]]
// CHECK: [[NI:%.+]] = arith.select [[GT]], [[IDX64]], [[BI]]
// CHECK: linalg.yield [[NV]], [[NI]]
// CHECK: [[K:%.+]] = tensor.expand_shape [[R]]#1 {{\[}}[0, 1]] output_shape [2, 1]
// CHECK: return [[K]]
func.func @argmax_keepdims(%x: tensor<2x3xf32>) -> tensor<2x1xi64> {
  %0 = int21.argmax %x {axis = 1 : i64, keepdims = true, select_last_index = false} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  return %0 : tensor<2x1xi64>
}

// -----

// Argmin on integers, last index on ties: a non-strict signed comparison
// against the largest i32.

// CHECK-LABEL: func.func @argmin_last
// CHECK: arith.constant 2147483647 : i32
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
// CHECK: linalg.index 0
// CHECK: arith.cmpi sle
// CHECK-NOT: tensor.expand_shape
func.func @argmin_last(%x: tensor<2x3xi32>) -> tensor<3xi64> {
  %0 = int21.argmin %x {axis = 0 : i64, keepdims = false, select_last_index = true} : (tensor<2x3xi32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// Unsigned argmax starts from 0 and compares unsigned.
// CHECK-LABEL: func.func @argmax_unsigned
// CHECK: [[X:%.+]] = tensor.bitcast %{{.*}} : tensor<2x3xui8> to tensor<2x3xi8>
// CHECK: [[ZERO:%.+]] = arith.constant 0 : i8
// CHECK: linalg.fill ins([[ZERO]] : i8)
// CHECK: linalg.generic
// CHECK-SAME: ins([[X]] : tensor<2x3xi8>)
// CHECK: arith.cmpi ugt
func.func @argmax_unsigned(%x: tensor<2x3xui8>) -> tensor<2xi64> {
  %0 = int21.argmax %x {axis = 1 : i64, keepdims = false, select_last_index = false} : (tensor<2x3xui8>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// A pointwise convolution (1x1, stride 1, no padding, one group) of one
// image is a matmul of the weight [F, C] by the input viewed as [C, H*W],
// from the broadcast bias; its epilogue (ReLU, residual add) is rewritten
// on [F, H*W], fused into one linalg.generic, and the reshape back to NCHW
// moved after it, the group's last op. (32 pixels fill the vectors; see
// @pointwise_conv_lanes for a map that does not.)
// CHECK-LABEL: func.func @pointwise_conv
// CHECK-SAME: ([[X:%.+]]: tensor<1x8x4x8xf32>, [[W:%.+]]: tensor<16x8x1x1xf32>, [[B:%.+]]: tensor<16xf32>, [[R:%.+]]: tensor<1x16x4x8xf32>)
// CHECK: int21.fusion_group {
// CHECK-DAG: [[XM:%.+]] = tensor.collapse_shape [[X]] {{\[}}[0, 1], [2, 3]] : tensor<1x8x4x8xf32> into tensor<8x32xf32>
// CHECK-DAG: [[WM:%.+]] = tensor.collapse_shape [[W]] {{\[}}[0], [1, 2, 3]] : tensor<16x8x1x1xf32> into tensor<16x8xf32>
// CHECK: [[INIT:%.+]] = linalg.generic {{.*}} ins([[B]] : tensor<16xf32>) outs({{.*}} : tensor<16x32xf32>)
// CHECK: [[MM:%.+]] = linalg.matmul ins([[WM]], [[XM]] : tensor<16x8xf32>, tensor<8x32xf32>) outs([[INIT]] : tensor<16x32xf32>)
// CHECK: [[RM:%.+]] = tensor.collapse_shape [[R]] {{\[}}[0, 1], [2, 3]] : tensor<1x16x4x8xf32> into tensor<16x32xf32>
// CHECK: [[SUM:%.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins([[MM]], [[RM]] : tensor<16x32xf32>, tensor<16x32xf32>)
// CHECK-NEXT: ^bb
// CHECK: arith.cmpf olt
// CHECK-NEXT: arith.select
// CHECK-NEXT: arith.addf
// CHECK-NEXT: linalg.yield
// CHECK-NEXT: }
// CHECK-NEXT: [[OUT:%.+]] = tensor.expand_shape [[SUM]] {{\[}}[0, 1], [2, 3]] output_shape [1, 16, 4, 8] : tensor<16x32xf32> into tensor<1x16x4x8xf32>
// CHECK-NEXT: int21.yield [[OUT]]
func.func @pointwise_conv(%x: tensor<1x8x4x8xf32>, %w: tensor<16x8x1x1xf32>, %b: tensor<16xf32>, %r: tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf32> {
  %0 = int21.fusion_group {
    %1 = int21.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x8x4x8xf32>, tensor<16x8x1x1xf32>, tensor<16xf32>) -> tensor<1x16x4x8xf32>
    %2 = int21.relu %1 : tensor<1x16x4x8xf32>
    %3 = int21.add %2, %r : (tensor<1x16x4x8xf32>, tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf32>
    int21.yield %3 : tensor<1x16x4x8xf32>
  } : tensor<1x16x4x8xf32>
  return %0 : tensor<1x16x4x8xf32>
}

// -----

// On a 7x7 map the 49 pixels fill 49 of 64 lanes, the 32 filters two whole
// vectors: the product is computed transposed, [P, F] = input^T [P, C] (the
// input read through the matmul's map) x weight^T [C, F], and transposed
// back to [F, P] before the epilogue. With filter-lanes=false (GPU
// targets), the plain product [F, C] x [C, P].
// NAMED-LABEL: func.func @pointwise_conv_lanes
// NAMED: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x8xf32>, tensor<8x49xf32>) outs(%{{.*}} : tensor<32x49xf32>)
// CHECK-LABEL: func.func @pointwise_conv_lanes
// CHECK-SAME: ([[X:%.+]]: tensor<1x8x7x7xf32>, [[W:%.+]]: tensor<32x8x1x1xf32>, [[B:%.+]]: tensor<32xf32>)
// CHECK-DAG: [[WM:%.+]] = tensor.collapse_shape [[W]] {{\[}}[0], [1, 2, 3]] : tensor<32x8x1x1xf32> into tensor<32x8xf32>
// CHECK-DAG: [[XM:%.+]] = tensor.collapse_shape [[X]] {{\[}}[0, 1], [2, 3]] : tensor<1x8x7x7xf32> into tensor<8x49xf32>
// CHECK: [[INIT:%.+]] = linalg.generic {{.*}} ins([[B]] : tensor<32xf32>) outs({{.*}} : tensor<49x32xf32>)
// CHECK: [[WT:%.+]] = linalg.transpose ins([[WM]] : tensor<32x8xf32>) outs({{.*}} : tensor<8x32xf32>) permutation = [1, 0]
// CHECK-NOT: tensor.pad
// CHECK: [[MM:%.+]] = linalg.matmul indexing_maps = [#[[$MAPA:.+]], #[[$MAPB:.+]], #[[$MAPC:.+]]] ins([[XM]], [[WT]] : tensor<8x49xf32>, tensor<8x32xf32>) outs([[INIT]] : tensor<49x32xf32>)
// CHECK: [[BACK:%.+]] = linalg.transpose ins([[MM]] : tensor<49x32xf32>) outs({{.*}} : tensor<32x49xf32>) permutation = [1, 0]
// CHECK: tensor.expand_shape [[BACK]] {{\[}}[0, 1], [2, 3]] output_shape [1, 32, 7, 7] : tensor<32x49xf32> into tensor<1x32x7x7xf32>
func.func @pointwise_conv_lanes(%x: tensor<1x8x7x7xf32>, %w: tensor<32x8x1x1xf32>, %b: tensor<32xf32>) -> tensor<1x32x7x7xf32> {
  %0 = int21.fusion_group {
    %1 = int21.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x8x7x7xf32>, tensor<32x8x1x1xf32>, tensor<32xf32>) -> tensor<1x32x7x7xf32>
    int21.yield %1 : tensor<1x32x7x7xf32>
  } : tensor<1x32x7x7xf32>
  return %0 : tensor<1x32x7x7xf32>
}

// -----

// The same with a constant weight: its transpose in panels of 16 filters,
// [F/16, C, 16] (a transpose of its [F/16, 16, C] view, folded by the
// constant folder here and by int21-outline-weights in the engine); a
// generic over (p, fb, fi, c) reads the input through (c, p), starts from
// the bias broadcast over [P, F/16, 16] and is transposed to [F/16, 16, P],
// the NCHW result's view.
// CHECK-DAG: #[[$TA:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d0)>
// CHECK-DAG: #[[$TB:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d3, d2)>
// CHECK-DAG: #[[$TC:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @pointwise_conv_lanes_panels
// CHECK-SAME: ([[X:%.+]]: tensor<1x8x7x7xf32>, [[B:%.+]]: tensor<32xf32>)
// CHECK: [[XM:%.+]] = tensor.collapse_shape [[X]] {{\[}}[0, 1], [2, 3]] : tensor<1x8x7x7xf32> into tensor<8x49xf32>
// CHECK: [[PANELS:%.+]] = linalg.transpose ins({{.*}} : tensor<2x16x8xf32>) outs({{.*}} : tensor<2x8x16xf32>) permutation = [0, 2, 1]
// CHECK: [[INIT:%.+]] = linalg.generic {{.*}} outs({{.*}} : tensor<49x2x16xf32>)
// CHECK: [[P:%.+]] = linalg.generic {indexing_maps = [#[[$TA]], #[[$TB]], #[[$TC]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins([[XM]], [[PANELS]] : tensor<8x49xf32>, tensor<2x8x16xf32>) outs([[INIT]] : tensor<49x2x16xf32>)
// CHECK: [[BACK:%.+]] = linalg.transpose ins([[P]] : tensor<49x2x16xf32>) outs({{.*}} : tensor<2x16x49xf32>) permutation = [1, 2, 0]
// CHECK: tensor.collapse_shape [[BACK]] {{\[}}[0, 1], [2]] : tensor<2x16x49xf32> into tensor<32x49xf32>
func.func @pointwise_conv_lanes_panels(%x: tensor<1x8x7x7xf32>, %b: tensor<32xf32>) -> tensor<1x32x7x7xf32> {
  %w = arith.constant dense<0.5> : tensor<32x8x1x1xf32>
  %0 = int21.fusion_group {
    %1 = int21.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x8x7x7xf32>, tensor<32x8x1x1xf32>, tensor<32xf32>) -> tensor<1x32x7x7xf32>
    int21.yield %1 : tensor<1x32x7x7xf32>
  } : tensor<1x32x7x7xf32>
  return %0 : tensor<1x32x7x7xf32>
}

// -----

// 512 filters: the transposed weight's rows would be 2 KiB apart (a panel
// of them in a few L1 sets), so it is a view of rows of 528 (the padding
// folds into the constant once the weights are outlined).
// CHECK-LABEL: func.func @pointwise_conv_lanes_rows_apart
// CHECK: [[WT:%.+]] = linalg.transpose ins({{.*}} : tensor<512x8xf32>) outs({{.*}} : tensor<8x512xf32>) permutation = [1, 0]
// CHECK: [[PAD:%.+]] = tensor.pad [[WT]] low[0, 0] high[0, 16]
// CHECK: tensor<8x512xf32> to tensor<8x528xf32>
// CHECK: [[VIEW:%.+]] = tensor.extract_slice [[PAD]][0, 0] [8, 512] [1, 1] : tensor<8x528xf32> to tensor<8x512xf32>
// CHECK: linalg.matmul indexing_maps = {{.*}} ins({{.*}}, [[VIEW]] : tensor<8x49xf32>, tensor<8x512xf32>) outs({{.*}} : tensor<49x512xf32>)
func.func @pointwise_conv_lanes_rows_apart(%x: tensor<1x8x7x7xf32>, %w: tensor<512x8x1x1xf32>) -> tensor<1x512x7x7xf32> {
  %0 = int21.fusion_group {
    %1 = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x8x7x7xf32>, tensor<512x8x1x1xf32>) -> tensor<1x512x7x7xf32>
    int21.yield %1 : tensor<1x512x7x7xf32>
  } : tensor<1x512x7x7xf32>
  return %0 : tensor<1x512x7x7xf32>
}

// -----

// On a 1x1 map (a squeeze-excite block's FC layers) the matmul is the input
// row [1, C] by the transposed weight [C, F] (a constant weight's transpose
// is folded at compile time): its vectors lie along the filters.
// CHECK-LABEL: func.func @pointwise_conv_1x1_map
// CHECK-SAME: ([[X:%.+]]: tensor<1x8x1x1xf32>, [[W:%.+]]: tensor<16x8x1x1xf32>, [[B:%.+]]: tensor<16xf32>)
// CHECK-DAG: [[ROW:%.+]] = tensor.collapse_shape [[X]] {{\[}}[0], [1, 2, 3]] : tensor<1x8x1x1xf32> into tensor<1x8xf32>
// CHECK-DAG: [[WM:%.+]] = tensor.collapse_shape [[W]] {{\[}}[0], [1, 2, 3]] : tensor<16x8x1x1xf32> into tensor<16x8xf32>
// CHECK: [[WT:%.+]] = linalg.transpose ins([[WM]] : tensor<16x8xf32>) outs({{.*}} : tensor<8x16xf32>) permutation = [1, 0]
// CHECK: [[INIT:%.+]] = linalg.generic {{.*}} ins([[B]] : tensor<16xf32>) outs({{.*}} : tensor<1x16xf32>)
// CHECK: [[MM:%.+]] = linalg.matmul ins([[ROW]], [[WT]] : tensor<1x8xf32>, tensor<8x16xf32>) outs([[INIT]] : tensor<1x16xf32>)
// CHECK: tensor.expand_shape {{.*}} output_shape [1, 16, 1, 1] : tensor<1x16xf32> into tensor<1x16x1x1xf32>
func.func @pointwise_conv_1x1_map(%x: tensor<1x8x1x1xf32>, %w: tensor<16x8x1x1xf32>, %b: tensor<16xf32>) -> tensor<1x16x1x1xf32> {
  %0 = int21.fusion_group {
    %1 = int21.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x8x1x1xf32>, tensor<16x8x1x1xf32>, tensor<16xf32>) -> tensor<1x16x1x1xf32>
    %2 = int21.relu %1 : tensor<1x16x1x1xf32>
    int21.yield %2 : tensor<1x16x1x1xf32>
  } : tensor<1x16x1x1xf32>
  return %0 : tensor<1x16x1x1xf32>
}

// -----

// Other 1x1 convolutions stay convolutions: strided, padded, of a batch of
// two images (the weight would be shared by the images of a batch matmul).
// CHECK-LABEL: func.func @not_pointwise
// CHECK-NOT: linalg.matmul
// CHECK-COUNT-3: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.matmul
func.func @not_pointwise(%x: tensor<1x8x4x6xf32>, %w: tensor<16x8x1x1xf32>, %y: tensor<2x8x4x6xf32>) -> (tensor<1x16x2x3xf32>, tensor<1x16x6x8xf32>, tensor<2x16x4x6xf32>) {
  %0 = int21.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x8x4x6xf32>, tensor<16x8x1x1xf32>) -> tensor<1x16x2x3xf32>
  %1 = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x8x4x6xf32>, tensor<16x8x1x1xf32>) -> tensor<1x16x6x8xf32>
  %2 = int21.conv %y, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<2x8x4x6xf32>, tensor<16x8x1x1xf32>) -> tensor<2x16x4x6xf32>
  return %0, %1, %2 : tensor<1x16x2x3xf32>, tensor<1x16x6x8xf32>, tensor<2x16x4x6xf32>
}

// -----

// A constant weight whose filters fill whole vectors (16, 32, ...) goes
// into blocks of 16 filters, [F/16, C, KH, KW, 16] (a reshape and a
// transpose that int21-outline-weights folds into a constant, each block
// contiguous), and the convolution is a generic over (n, fb, fi, oh, ow, c,
// kh, kw) reading it at (fb, c, kh, kw, fi), the input at the strided and
// dilated window, from the bias in the same blocks, its [N, F/16, 16, OH,
// OW] result a view of NCHW: @cpu.conv2d_filter_lanes runs the filters
// along the vectors. (A weight given as an argument keeps the named op, see
// @conv_bias_pads_strides.) With filter-lanes=false (GPU targets) it stays
// the named convolution.
// NAMED-LABEL: func.func @conv_filter_lanes
// NAMED-NOT: linalg.transpose
// NAMED: linalg.conv_2d_nchw_fchw
// NAMED-SAME: tensor<32x3x3x3xf32>
// CHECK-DAG: [[BIAS:#.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2)>
// CHECK-DAG: [[IN:#.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d3 * 2 + d6, d4 * 2 + d7 * 2)>
// CHECK-DAG: [[WB:#.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d5, d6, d7, d2)>
// CHECK-DAG: [[OUT:#.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @conv_filter_lanes
// CHECK-SAME: ([[X:%.+]]: tensor<1x3x8x8xf32>, [[B:%.+]]: tensor<32xf32>)
// CHECK: [[PAD:%.+]] = tensor.pad [[X]]
// CHECK: [[SPLIT:%.+]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 16, 3, 3, 3] : tensor<32x3x3x3xf32> into tensor<2x16x3x3x3xf32>
// CHECK: [[W:%.+]] = linalg.transpose ins([[SPLIT]] : tensor<2x16x3x3x3xf32>) outs(%{{.*}} : tensor<2x3x3x3x16xf32>) permutation = [0, 2, 3, 4, 1]
// CHECK: [[B2:%.+]] = tensor.expand_shape [[B]] {{\[}}[0, 1]] output_shape [2, 16] : tensor<32xf32> into tensor<2x16xf32>
// CHECK: [[INIT:%.+]] = linalg.generic {indexing_maps = [[[BIAS]], {{.*}}]{{.*}} ins([[B2]] : tensor<2x16xf32>) outs(%{{.*}} : tensor<1x2x16x4x4xf32>)
// CHECK: [[CONV:%.+]] = linalg.generic {indexing_maps = [[[IN]], [[WB]], [[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME: ins([[PAD]], [[W]] : tensor<1x3x10x12xf32>, tensor<2x3x3x3x16xf32>) outs([[INIT]] : tensor<1x2x16x4x4xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: [[R:%.+]] = tensor.collapse_shape [[CONV]] {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x16x4x4xf32> into tensor<1x32x4x4xf32>
// CHECK: return [[R]]
func.func @conv_filter_lanes(%x: tensor<1x3x8x8xf32>, %b: tensor<32xf32>) -> tensor<1x32x4x4xf32> {
  %w = arith.constant dense<0.5> : tensor<32x3x3x3xf32>
  %0 = int21.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 2, 1, 2>, dilations = array<i64: 1, 2>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<32x3x3x3xf32>, tensor<32xf32>) -> tensor<1x32x4x4xf32>
  return %0 : tensor<1x32x4x4xf32>
}
