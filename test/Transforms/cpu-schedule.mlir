// RUN: int21-opt %s -split-input-file -int21-cpu-schedule | FileCheck %s
// RUN: int21-opt %s -split-input-file -int21-cpu-schedule=threads=false | FileCheck %s --check-prefix=SEQ

// A matmul group: threads over M x N, a K cache loop, an 8x32 register tile
// of broadcast FMAs; the fill is fused into the thread tiles.
// CHECK-LABEL: func.func @matmul
// CHECK-NOT: int21.fusion_group
// CHECK: scf.forall
// CHECK: scf.for
// CHECK: scf.for
// CHECK: vector.fma {{.*}} : vector<32xf32>
// CHECK: scf.forall.in_parallel
// CHECK-NOT: linalg.matmul
// SEQ-LABEL: func.func @matmul
// SEQ-NOT: scf.forall
// SEQ: vector.fma {{.*}} : vector<32xf32>
func.func @matmul(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>) -> tensor<64x256xf32> {
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
    %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
    int21.yield %m : tensor<64x256xf32>
  } : tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}

// -----

// A one-row matmul with its bias (a batch-1 classifier head): the bias keeps
// the matmul's [1, n] (its unit row is not dropped), so the matmul template
// schedules the group and fuses the bias, as for any M.
// CHECK-LABEL: func.func @one_row_matmul_bias
// CHECK: scf.forall
// CHECK: vector.fma {{.*}} : vector<{{[0-9]+}}xf32>
// CHECK: arith.addf {{.*}} : vector<
// CHECK: scf.forall.in_parallel
// CHECK-NOT: scf.forall
// CHECK: return
func.func @one_row_matmul_bias(%a: tensor<1x128xf32>, %b: tensor<128x1000xf32>, %bias: tensor<1000xf32>) -> tensor<1x1000xf32> {
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x1000xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1000xf32>) -> tensor<1x1000xf32>
    %m = linalg.matmul ins(%a, %b : tensor<1x128xf32>, tensor<128x1000xf32>) outs(%f : tensor<1x1000xf32>) -> tensor<1x1000xf32>
    %add = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<1x1000xf32>, tensor<1000xf32>) outs(%e : tensor<1x1000xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    } -> tensor<1x1000xf32>
    int21.yield %add : tensor<1x1000xf32>
  } : tensor<1x1000xf32>
  return %0 : tensor<1x1000xf32>
}

// -----

// matmul + bias + relu: the consumers are fused into the matmul's thread
// tiles (one scf.forall) and into its 8x32 register tiles (epilogue_regs,
// K x par_n short): the accumulators go over the whole of K in registers,
// then through the bias and the ReLU, and are stored once.
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK: scf.forall
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<16x128xf32>)
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<16x128xf32>)
// CHECK-NEXT: %[[ACC:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<8x32xf32>)
// CHECK: vector.fma
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %{{.*}} : vector<8x32xf32>
// CHECK-NEXT: %[[RELU:.*]] = arith.maximumf %[[SUM]], %{{.*}} : vector<8x32xf32>
// CHECK-NEXT: vector.transfer_write %[[RELU]]
// CHECK-NOT: vector.transfer_write
// CHECK: scf.forall.in_parallel
// CHECK-NOT: scf.forall
// CHECK: return
func.func @matmul_bias_relu(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>, %bias: tensor<256xf32>) -> tensor<64x256xf32> {
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
    %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
    %add = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<64x256xf32>, tensor<256xf32>) outs(%e : tensor<64x256xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    } -> tensor<64x256xf32>
    %relu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%add : tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) {
    ^bb0(%x: f32, %o: f32):
      %r = arith.maximumf %x, %zero : f32
      linalg.yield %r : f32
    } -> tensor<64x256xf32>
    int21.yield %relu : tensor<64x256xf32>
  } : tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}

// -----

// A convolution of stride 1 and rows of 16 columns takes the window form:
// thread tiles of 4 output rows, register tiles of 4 filters x 4 rows x 16
// columns whose accumulators stay in registers across the channels and the
// 3x3 window; each step reads one 4x16 box of the input (contiguous rows,
// no im2col copy) and multiplies it by 4 broadcast weights.
// CHECK-LABEL: func.func @conv
// CHECK: scf.forall (%{{.*}}) in (4)
// CHECK: scf.for {{.*}} -> (vector<4x16xf32>, vector<4x16xf32>, vector<4x16xf32>, vector<4x16xf32>)
// CHECK: scf.for {{.*}} -> (vector<4x16xf32>, vector<4x16xf32>, vector<4x16xf32>, vector<4x16xf32>)
// CHECK: scf.for {{.*}} -> (vector<4x16xf32>, vector<4x16xf32>, vector<4x16xf32>, vector<4x16xf32>)
// CHECK: %[[BOX:.*]] = vector.transfer_read %arg0{{.*}} : tensor<1x16x18x18xf32>, vector<4x16xf32>
// CHECK-COUNT-4: vector.fma %[[BOX]], {{.*}} : vector<4x16xf32>
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @conv(%x: tensor<1x16x18x18xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<1x32x16x16xf32> {
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x32x16x16xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
    %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x18x18xf32>, tensor<32x16x3x3xf32>) outs(%f : tensor<1x32x16x16xf32>) -> tensor<1x32x16x16xf32>
    int21.yield %c : tensor<1x32x16x16xf32>
  } : tensor<1x32x16x16xf32>
  return %0 : tensor<1x32x16x16xf32>
}

// -----

// A 7x7 feature map (49 pixels, no multiple of 16) keeps im2col, whose
// pixel tiles span rows (a row of 7 would fill 7 of 16 lanes): an im2col
// contraction tiled into threads with the im2col slice computed per tile,
// one pixel tile, a 16x16
// register tile with its accumulator in registers, and the last pixel peeled
// into a 16x1 tile, vectorized too.
// CHECK-LABEL: func.func @conv_7x7
// CHECK: scf.for {{.*}} -> (vector<1x16x16xf32>)
// CHECK-COUNT-16: vector.fma {{.*}} : vector<16xf32>
// CHECK: vector.fma {{.*}} : vector<1xf32>
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @conv_7x7(%x: tensor<1x16x9x9xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<1x32x7x7xf32> {
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x32x7x7xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
    %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x9x9xf32>, tensor<32x16x3x3xf32>) outs(%f : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
    int21.yield %c : tensor<1x32x7x7xf32>
  } : tensor<1x32x7x7xf32>
  return %0 : tensor<1x32x7x7xf32>
}

// -----

// Elementwise ops outside any group are scheduled as groups of one:
// threads over the outer dimension, vectors along the inner one (a work
// large enough for threads: see the tiny groups below).
// CHECK-LABEL: func.func @elementwise
// CHECK: scf.forall
// CHECK: math.exp {{.*}} : vector<64xf32>
// CHECK-NOT: linalg.generic
func.func @elementwise(%x: tensor<256x64xf32>) -> tensor<256x64xf32> {
  %e = tensor.empty() : tensor<256x64xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<256x64xf32>) outs(%e : tensor<256x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<256x64xf32>
  return %0 : tensor<256x64xf32>
}

// -----

// A group whose work a fork and join of the threads would outweigh (8 rows
// of 64: 2 KiB in, 2 KiB out, 512 exponentials) takes one thread tile of
// all of it (every par_ knob at its dimension's extent): no parallel loop.
// CHECK-LABEL: func.func @tiny_elementwise
// CHECK-NOT: scf.forall
// CHECK: scf.for {{.*}} to %c8 step %c1
// CHECK: math.exp {{.*}} : vector<64xf32>
// CHECK-NOT: scf.forall
// CHECK: return
func.func @tiny_elementwise(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = tensor.empty() : tensor<8x64xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

// No template matches a full reduction (no parallel dimension to tile):
// the op is left as it was, and the group dissolved.
// CHECK-LABEL: func.func @unmatched
// CHECK-NOT: int21.fusion_group
// CHECK-NOT: scf.forall
// CHECK: linalg.reduce
func.func @unmatched(%x: tensor<16xf32>, %init: tensor<f32>) -> tensor<f32> {
  %0 = int21.fusion_group {
    %r = linalg.reduce ins(%x : tensor<16xf32>) outs(%init : tensor<f32>) dimensions = [0]
      (%a: f32, %b: f32) {
        %s = arith.addf %a, %b : f32
        linalg.yield %s : f32
      }
    int21.yield %r : tensor<f32>
  } : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A group over a dimension of 0 computes nothing: it keeps no schedule
// (the knob heuristics would divide by the 0).
// CHECK-LABEL: func.func @empty
// CHECK-NOT: scf.forall
// CHECK: linalg.generic
// SEQ-LABEL: func.func @empty
func.func @empty(%x: tensor<3x0x5xf32>) -> tensor<3x0x5xf32> {
  %0 = int21.fusion_group {
    %e = tensor.empty() : tensor<3x0x5xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<3x0x5xf32>) outs(%e : tensor<3x0x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %n = arith.negf %in : f32
      linalg.yield %n : f32
    } -> tensor<3x0x5xf32>
    int21.yield %r : tensor<3x0x5xf32>
  } : tensor<3x0x5xf32>
  return %0 : tensor<3x0x5xf32>
}

// -----

// A depthwise 3x3 convolution (the lowering's generic: n, c, oh, ow, kh, kw)
// with its bias, padding and ReLU6: threads over channels and rows, the
// padding, the bias and the convolution fused into them, and register
// tiles of the root (4x16 outputs of one channel; epilogue_regs = 1) with
// the bias and the convolution fused into each, accumulating over the
// window in registers, ReLU6 on the accumulators.
// CHECK-LABEL: func.func @depthwise_bias_relu6
// CHECK: scf.forall
// The padding: its border written once (the rows above and below, the
// columns either side), the input tile inserted, and the padded window back
// to the full rank as a view, not a copy.
// CHECK: vector.transfer_write %{{.*}} : vector<2x1x18xf32>, tensor<2x18x18xf32>
// CHECK: vector.transfer_write %{{.*}} : vector<2x1x18xf32>, tensor<2x18x18xf32>
// CHECK: vector.transfer_write %{{.*}} : vector<2x16x1xf32>, tensor<2x18x18xf32>
// CHECK: vector.transfer_write %{{.*}} : vector<2x16x1xf32>, tensor<2x18x18xf32>
// CHECK-NEXT: %[[PADDED:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 1, 1] [2, 16, 16] [1, 1, 1] : tensor<2x16x16xf32> into tensor<2x18x18xf32>
// CHECK-NEXT: tensor.expand_shape %[[PADDED]]
// The bias starts from a tile of its own empty tensor, not of the output
// (which the bufferization would copy in before every tile).
// CHECK: %[[EMPTY:.*]] = tensor.extract_slice %0
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: tensor.pad
// CHECK: tensor.extract_slice %[[EMPTY]]
// CHECK: vector.transfer_read {{.*}} vector<4x16xf32>
// CHECK: scf.for {{.*}} -> (vector<4x16xf32>)
// CHECK: scf.for {{.*}} -> (vector<4x16xf32>)
// CHECK: vector.fma {{.*}} : vector<4x16xf32>
// CHECK: arith.maximumf {{.*}} : vector<4x16xf32>
// CHECK: arith.minimumf {{.*}} : vector<4x16xf32>
// CHECK: tensor.insert_slice {{.*}} [1, 1, 4, 16]
// CHECK: scf.forall.in_parallel
// CHECK-NOT: scf.forall
// CHECK: return
func.func @depthwise_bias_relu6(%x: tensor<1x16x16x16xf32>, %w: tensor<16x3x3xf32>, %bias: tensor<16xf32>) -> tensor<1x16x16x16xf32> {
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %six = arith.constant 6.0 : f32
    %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%i: index, %j: index, %k: index, %l: index):
      tensor.yield %zero : f32
    } : tensor<1x16x16x16xf32> to tensor<1x16x18x18xf32>
    %e = tensor.empty() : tensor<1x16x16x16xf32>
    %b = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<16xf32>) outs(%e : tensor<1x16x16x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x16x16x16xf32>
    %conv = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%padded, %w : tensor<1x16x18x18xf32>, tensor<16x3x3xf32>) outs(%b : tensor<1x16x16x16xf32>) {
    ^bb0(%in: f32, %wt: f32, %out: f32):
      %m = arith.mulf %in, %wt : f32
      %a = arith.addf %out, %m : f32
      linalg.yield %a : f32
    } -> tensor<1x16x16x16xf32>
    %clip = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv : tensor<1x16x16x16xf32>) outs(%e : tensor<1x16x16x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %lo = arith.maximumf %in, %zero : f32
      %hi = arith.minimumf %lo, %six : f32
      linalg.yield %hi : f32
    } -> tensor<1x16x16x16xf32>
    int21.yield %clip : tensor<1x16x16x16xf32>
  } : tensor<1x16x16x16xf32>
  return %0 : tensor<1x16x16x16xf32>
}

// -----

// A depthwise convolution of stride 2 with nothing after it: the
// convolution is the root, threads over channels (4 a tile) and rows all the
// same. A
// window step reads each row's contiguous span (15 values) and keeps every
// second value, instead of loading them one by one.
// CHECK-LABEL: func.func @depthwise_stride2
// CHECK: scf.forall
// CHECK: %[[PADDED:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 1, 1] [4, 16, 16] [1, 1, 1] : tensor<4x16x16xf32> into tensor<4x17x17xf32>
// CHECK-NEXT: tensor.expand_shape %[[PADDED]]
// CHECK: vector.transfer_read {{.*}} vector<8x15xf32>
// CHECK: vector.shuffle {{.*}} [0, 2, 4, 6, 8, 10, 12, 14] : vector<15xf32>, vector<15xf32>
// CHECK: vector.fma {{.*}} : vector<8x8xf32>
// CHECK: scf.forall.in_parallel
// CHECK-NOT: scf.forall
// CHECK: return
func.func @depthwise_stride2(%x: tensor<1x32x16x16xf32>, %w: tensor<32x3x3xf32>) -> tensor<1x32x8x8xf32> {
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%i: index, %j: index, %k: index, %l: index):
      tensor.yield %zero : f32
    } : tensor<1x32x16x16xf32> to tensor<1x32x18x18xf32>
    %e = tensor.empty() : tensor<1x32x8x8xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
    %conv = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%padded, %w : tensor<1x32x18x18xf32>, tensor<32x3x3xf32>) outs(%f : tensor<1x32x8x8xf32>) {
    ^bb0(%in: f32, %wt: f32, %out: f32):
      %m = arith.mulf %in, %wt : f32
      %a = arith.addf %out, %m : f32
      linalg.yield %a : f32
    } -> tensor<1x32x8x8xf32>
    int21.yield %conv : tensor<1x32x8x8xf32>
  } : tensor<1x32x8x8xf32>
  return %0 : tensor<1x32x8x8xf32>
}

// -----

// A grouped 3x3 convolution (the lowering's generic: n, g, f, oh, ow, c, kh,
// kw; 2 groups of 8 filters over 4 channels) with its bias, padding and
// ReLU over [N, G, F, OH, OW]: threads over groups and rows, the padding,
// the bias and the convolution fused into them; a register tile of 4
// filters x 4 rows x 16 columns whose filters are unrolled, so that each
// step of the channel and window loops loads a 4x16 box of the input once
// and multiplies it by 4 broadcast weights into 4 accumulator boxes held in
// registers across the loops; the bias and ReLU in the same register tile
// (epilogue_regs = 1), on the accumulators.
// CHECK-LABEL: func.func @grouped_bias_relu
// CHECK: scf.forall
// A band of rows: the rows of padding it has depend on where it lies.
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x?x18xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, %{{.*}}, 1] [4, %{{.*}}, 16] [1, 1, 1] : tensor<4x?x16xf32> into tensor<4x6x18xf32>
// CHECK: scf.for {{.*}} -> (vector<4x16xf32>, vector<4x16xf32>, vector<4x16xf32>, vector<4x16xf32>)
// CHECK: scf.for {{.*}} -> (vector<4x16xf32>, vector<4x16xf32>, vector<4x16xf32>, vector<4x16xf32>)
// CHECK: scf.for {{.*}} -> (vector<4x16xf32>, vector<4x16xf32>, vector<4x16xf32>, vector<4x16xf32>)
// CHECK-NEXT: vector.transfer_read {{.*}} vector<4x16xf32>
// CHECK-NOT: vector.transfer_read {{.*}} vector<4x16xf32>
// CHECK-COUNT-4: vector.fma {{.*}} : vector<4x16xf32>
// CHECK-NOT: vector.fma
// CHECK: scf.yield
// CHECK: arith.maximumf {{.*}} : vector<4x4x16xf32>
// CHECK: scf.forall.in_parallel
// CHECK-NOT: scf.forall
// CHECK: return
func.func @grouped_bias_relu(%x: tensor<1x2x4x16x16xf32>, %w: tensor<2x8x4x3x3xf32>, %bias: tensor<2x8xf32>) -> tensor<1x2x8x16x16xf32> {
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %padded = tensor.pad %x low[0, 0, 0, 1, 1] high[0, 0, 0, 1, 1] {
    ^bb0(%i: index, %j: index, %k: index, %l: index, %m: index):
      tensor.yield %zero : f32
    } : tensor<1x2x4x16x16xf32> to tensor<1x2x4x18x18xf32>
    %e = tensor.empty() : tensor<1x2x8x16x16xf32>
    %b = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d1, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<2x8xf32>) outs(%e : tensor<1x2x8x16x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x2x8x16x16xf32>
    %conv = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%padded, %w : tensor<1x2x4x18x18xf32>, tensor<2x8x4x3x3xf32>) outs(%b : tensor<1x2x8x16x16xf32>) {
    ^bb0(%in: f32, %wt: f32, %out: f32):
      %m = arith.mulf %in, %wt : f32
      %a = arith.addf %out, %m : f32
      linalg.yield %a : f32
    } -> tensor<1x2x8x16x16xf32>
    %relu = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%conv : tensor<1x2x8x16x16xf32>) outs(%e : tensor<1x2x8x16x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.maximumf %in, %zero : f32
      linalg.yield %r : f32
    } -> tensor<1x2x8x16x16xf32>
    int21.yield %relu : tensor<1x2x8x16x16xf32>
  } : tensor<1x2x8x16x16xf32>
  return %0 : tensor<1x2x8x16x16xf32>
}

// -----

// A product over rows of dynamic number (a classifier head of any batch)
// whose columns leave a partial thread tile (1000 in tiles of 128): the rows
// past the last full register tile, static along the columns once
// canonicalized, run one at a time, each a vector of 32 columns of broadcast
// FMAs, not scalar loops; nothing of the product is left unvectorized but
// the columns past the last full vector.
// CHECK-LABEL: func.func @matmul_dynamic_rows
// CHECK: scf.forall {{.*}} -> (tensor<?x1000xf32>)
// CHECK: vector.fma {{.*}} : vector<32xf32>
// CHECK: scf.for %{{.+}} = %{{.+}} to %c64 step %c1 iter_args(%[[ACC:[^ ]+]] = %{{.+}}) -> (tensor<?x32xf32>)
// CHECK: scf.for %[[ROW:[^ ]+]] = %{{.+}} to %{{.+}} step %c1 iter_args(%[[T:[^ ]+]] = %[[ACC]]) -> (tensor<?x32xf32>)
// CHECK: vector.transfer_read %[[T]][%[[ROW]], %{{.+}}]{{.*}} : tensor<?x32xf32>, vector<32xf32>
// CHECK: vector.fma {{.*}} : vector<32xf32>
func.func @matmul_dynamic_rows(%a: tensor<?x64xf32>, %b: tensor<64x1000xf32>) -> tensor<?x1000xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x64xf32>
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty(%m) : tensor<?x1000xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x1000xf32>) -> tensor<?x1000xf32>
    %r = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x1000xf32>) outs(%f : tensor<?x1000xf32>) -> tensor<?x1000xf32>
    int21.yield %r : tensor<?x1000xf32>
  } : tensor<?x1000xf32>
  return %0 : tensor<?x1000xf32>
}

// -----

// The same with a long K (a classifier head 1280 -> 1000 of any batch),
// whose register tiles keep the bias and the epilogue apart: the rows past
// the last full register tile run one at a time outside the steps over K,
// so that each row's accumulators stay in registers across K (a loop
// argument), not read and written at every step.
// CHECK-LABEL: func.func @matmul_dynamic_rows_long_k
// CHECK: scf.forall {{.*}} -> (tensor<?x1000xf32>)
// CHECK: scf.for %{{.+}} = %{{.+}} to %c256 step %c1 iter_args(%{{[^ ]+}} = %{{.+}}) -> (vector<8x32xf32>)
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c1 iter_args(%{{[^ ]+}} = %{{.+}}) -> (tensor<?x32xf32>)
// CHECK-NEXT: vector.transfer_read
// CHECK-NEXT: vector.broadcast
// CHECK-NEXT: scf.for %{{.+}} = %{{.+}} to %c256 step %c1 iter_args(%{{[^ ]+}} = %{{.+}}) -> (vector<1x32xf32>)
// CHECK: vector.fma {{.*}} : vector<32xf32>
func.func @matmul_dynamic_rows_long_k(%a: tensor<?x1280xf32>, %b: tensor<1280x1000xf32>) -> tensor<?x1000xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x1280xf32>
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty(%m) : tensor<?x1000xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x1000xf32>) -> tensor<?x1000xf32>
    %r = linalg.matmul ins(%a, %b : tensor<?x1280xf32>, tensor<1280x1000xf32>) outs(%f : tensor<?x1000xf32>) -> tensor<?x1000xf32>
    int21.yield %r : tensor<?x1000xf32>
  } : tensor<?x1000xf32>
  return %0 : tensor<?x1000xf32>
}
