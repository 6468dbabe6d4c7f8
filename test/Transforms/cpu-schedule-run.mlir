// Runs kernels scheduled by int21-cpu-schedule (threads on OpenMP, and
// sequential) and checks that they compute what the unscheduled kernels
// compute: a 37x53x29 matmul (no tile divides it), the same with B packed
// into panels and the K loop unrolled by 2, matmul + bias + relu (also in
// one thread tile that holds the whole output), a
// strided convolution with bias and relu, a convolution with bias, residual
// add and relu over 20 filters, a strided 1x1 convolution, and an
// elementwise op. The printed
// values are those of the unscheduled lowering (checksums: the inputs are
// small integers, so f32 sums are exact).
// DEFINE: %{lower} = -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" -buffer-deallocation-pipeline -convert-bufferization-to-memref -scf-forall-to-parallel -convert-linalg-to-loops -lower-vector-multi-reduction -convert-vector-to-scf=full-unroll=true -expand-strided-metadata -lower-affine -convert-scf-to-openmp -convert-math-to-llvm -convert-vector-to-llvm -finalize-memref-to-llvm -convert-scf-to-cf -convert-arith-to-llvm -convert-openmp-to-llvm -convert-cf-to-llvm -convert-func-to-llvm -convert-ub-to-llvm -reconcile-unrealized-casts
// RUN: int21-opt %s -int21-cpu-schedule %{lower} | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs,/usr/lib/llvm-22/lib/libomp.so | FileCheck %s
// RUN: int21-opt %s -int21-cpu-schedule=threads=false %{lower} | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs | FileCheck %s
// RUN: int21-opt %s -int21-inline-fusion-groups %{lower} | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs,/usr/lib/llvm-22/lib/libomp.so | FileCheck %s

#id2 = affine_map<(i, j) -> (i, j)>
#id4 = affine_map<(n, c, h, w) -> (n, c, h, w)>

func.func private @printMemrefF32(tensor<*xf32>)

// t[i, j] = (a*i + b*j) mod m - s, as f32.
func.func @fill2(%t: tensor<?x?xf32>, %a: index, %b: index, %m: index, %s: f32) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%t : tensor<?x?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %x = arith.muli %i, %a : index
    %y = arith.muli %j, %b : index
    %z = arith.addi %x, %y : index
    %v = arith.remui %z, %m : index
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    %r = arith.subf %vf, %s : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @input2(%m: index, %n: index, %a: index, %b: index) -> tensor<?x?xf32> {
  %c7 = arith.constant 7 : index
  %s = arith.constant 3.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = call @fill2(%e, %a, %b, %c7, %s) : (tensor<?x?xf32>, index, index, index, f32) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @print(%t: tensor<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%t : tensor<?x?xf32>) outs(%init : tensor<f32>) dimensions = [0, 1]
    (%x: f32, %acc: f32) {
      %y = arith.addf %x, %acc : f32
      linalg.yield %y : f32
    }
  %u = tensor.cast %sum : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @matmul(%a: tensor<37x29xf32>, %b: tensor<29x53xf32>) -> tensor<37x53xf32> {
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<37x53xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<37x53xf32>) -> tensor<37x53xf32>
    %m = linalg.matmul ins(%a, %b : tensor<37x29xf32>, tensor<29x53xf32>) outs(%f : tensor<37x53xf32>) -> tensor<37x53xf32>
    int21.yield %m : tensor<37x53xf32>
  } : tensor<37x53xf32>
  return %0 : tensor<37x53xf32>
}

// Panels of B (pack_b) that the thread tile does not divide, and a
// K loop unrolled by 2 over an odd K.
func.func @matmul_packed(%a: tensor<37x29xf32>, %b: tensor<29x53xf32>) -> tensor<37x53xf32> {
  %0 = int21.fusion_group schedule(#int21.schedule<@cpu.matmul, {pack_b = 1 : i64, cache_n = 32 : i64, reg_n = 16 : i64, cache_k = 29 : i64, reg_k = 2 : i64}>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<37x53xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<37x53xf32>) -> tensor<37x53xf32>
    %m = linalg.matmul ins(%a, %b : tensor<37x29xf32>, tensor<29x53xf32>) outs(%f : tensor<37x53xf32>) -> tensor<37x53xf32>
    int21.yield %m : tensor<37x53xf32>
  } : tensor<37x53xf32>
  return %0 : tensor<37x53xf32>
}

func.func @matmul_bias_relu(%a: tensor<70x96xf32>, %b: tensor<96x80xf32>, %bias: tensor<80xf32>) -> tensor<70x80xf32> {
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<70x80xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<70x80xf32>) -> tensor<70x80xf32>
    %m = linalg.matmul ins(%a, %b : tensor<70x96xf32>, tensor<96x80xf32>) outs(%f : tensor<70x80xf32>) -> tensor<70x80xf32>
    %add = linalg.generic {indexing_maps = [#id2, affine_map<(d0, d1) -> (d1)>, #id2], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<70x80xf32>, tensor<80xf32>) outs(%e : tensor<70x80xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    } -> tensor<70x80xf32>
    %relu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%add : tensor<70x80xf32>) outs(%e : tensor<70x80xf32>) {
    ^bb0(%x: f32, %o: f32):
      %r = arith.maximumf %x, %zero : f32
      linalg.yield %r : f32
    } -> tensor<70x80xf32>
    int21.yield %relu : tensor<70x80xf32>
  } : tensor<70x80xf32>
  return %0 : tensor<70x80xf32>
}

// One thread tile holding the whole output, the epilogue in passes of its
// own.
func.func @matmul_bias_relu_whole(%a: tensor<70x96xf32>, %b: tensor<96x80xf32>, %bias: tensor<80xf32>) -> tensor<70x80xf32> {
  %0 = int21.fusion_group schedule(#int21.schedule<@cpu.matmul, {par_m = 128 : i64, par_n = 128 : i64, epilogue_regs = 0 : i64}>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<70x80xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<70x80xf32>) -> tensor<70x80xf32>
    %m = linalg.matmul ins(%a, %b : tensor<70x96xf32>, tensor<96x80xf32>) outs(%f : tensor<70x80xf32>) -> tensor<70x80xf32>
    %add = linalg.generic {indexing_maps = [#id2, affine_map<(d0, d1) -> (d1)>, #id2], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<70x80xf32>, tensor<80xf32>) outs(%e : tensor<70x80xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    } -> tensor<70x80xf32>
    %relu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%add : tensor<70x80xf32>) outs(%e : tensor<70x80xf32>) {
    ^bb0(%x: f32, %o: f32):
      %r = arith.maximumf %x, %zero : f32
      linalg.yield %r : f32
    } -> tensor<70x80xf32>
    int21.yield %relu : tensor<70x80xf32>
  } : tensor<70x80xf32>
  return %0 : tensor<70x80xf32>
}

// Stride 2, 3x3, bias broadcast as the init, relu: 1x8x15x15 -> 1x16x7x7.
func.func @conv(%x: tensor<1x8x15x15xf32>, %w: tensor<16x8x3x3xf32>, %bias: tensor<16xf32>) -> tensor<1x16x7x7xf32> {
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x16x7x7xf32>
    %b = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (c)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<16xf32>) outs(%e : tensor<1x16x7x7xf32>) {
    ^bb0(%in: f32, %o: f32):
      linalg.yield %in : f32
    } -> tensor<1x16x7x7xf32>
    %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x8x15x15xf32>, tensor<16x8x3x3xf32>) outs(%b : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
    %relu = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x16x7x7xf32>) outs(%e : tensor<1x16x7x7xf32>) {
    ^bb0(%in: f32, %o: f32):
      %r = arith.maximumf %in, %zero : f32
      linalg.yield %r : f32
    } -> tensor<1x16x7x7xf32>
    int21.yield %relu : tensor<1x16x7x7xf32>
  } : tensor<1x16x7x7xf32>
  return %0 : tensor<1x16x7x7xf32>
}

// Stride 1, 3x3, 20 filters (not a multiple of the 8-row register tile),
// bias, residual add and relu: 1x6x10x10 -> 1x20x8x8.
func.func @conv_residual(%x: tensor<1x6x10x10xf32>, %w: tensor<20x6x3x3xf32>, %bias: tensor<20xf32>, %res: tensor<1x20x8x8xf32>) -> tensor<1x20x8x8xf32> {
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x20x8x8xf32>
    %b = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (c)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<20xf32>) outs(%e : tensor<1x20x8x8xf32>) {
    ^bb0(%in: f32, %o: f32):
      linalg.yield %in : f32
    } -> tensor<1x20x8x8xf32>
    %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x6x10x10xf32>, tensor<20x6x3x3xf32>) outs(%b : tensor<1x20x8x8xf32>) -> tensor<1x20x8x8xf32>
    %add = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %res : tensor<1x20x8x8xf32>, tensor<1x20x8x8xf32>) outs(%e : tensor<1x20x8x8xf32>) {
    ^bb0(%in: f32, %r: f32, %o: f32):
      %s = arith.addf %in, %r : f32
      linalg.yield %s : f32
    } -> tensor<1x20x8x8xf32>
    %relu = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%add : tensor<1x20x8x8xf32>) outs(%e : tensor<1x20x8x8xf32>) {
    ^bb0(%in: f32, %o: f32):
      %r = arith.maximumf %in, %zero : f32
      linalg.yield %r : f32
    } -> tensor<1x20x8x8xf32>
    int21.yield %relu : tensor<1x20x8x8xf32>
  } : tensor<1x20x8x8xf32>
  return %0 : tensor<1x20x8x8xf32>
}

// A 1x1 convolution with stride 2 (a downsampling shortcut), 13 channels
// in, 20 out, 25 pixels (a 16-lane tile and a peeled rest): 1x13x9x9 ->
// 1x20x5x5.
func.func @conv_1x1(%x: tensor<1x13x9x9xf32>, %w: tensor<20x13x1x1xf32>) -> tensor<1x20x5x5xf32> {
  %0 = int21.fusion_group {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x20x5x5xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x20x5x5xf32>) -> tensor<1x20x5x5xf32>
    %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x13x9x9xf32>, tensor<20x13x1x1xf32>) outs(%f : tensor<1x20x5x5xf32>) -> tensor<1x20x5x5xf32>
    int21.yield %c : tensor<1x20x5x5xf32>
  } : tensor<1x20x5x5xf32>
  return %0 : tensor<1x20x5x5xf32>
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c29 = arith.constant 29 : index
  %c37 = arith.constant 37 : index
  %c53 = arith.constant 53 : index
  %c70 = arith.constant 70 : index
  %c72 = arith.constant 72 : index
  %c80 = arith.constant 80 : index
  %c96 = arith.constant 96 : index
  %c225 = arith.constant 225 : index

  // CHECK: data =
  // CHECK-NEXT: [142]
  %a0 = call @input2(%c37, %c29, %c1, %c2) : (index, index, index, index) -> tensor<?x?xf32>
  %b0 = call @input2(%c29, %c53, %c3, %c1) : (index, index, index, index) -> tensor<?x?xf32>
  %a = tensor.cast %a0 : tensor<?x?xf32> to tensor<37x29xf32>
  %b = tensor.cast %b0 : tensor<?x?xf32> to tensor<29x53xf32>
  %m = call @matmul(%a, %b) : (tensor<37x29xf32>, tensor<29x53xf32>) -> tensor<37x53xf32>
  %mp = tensor.cast %m : tensor<37x53xf32> to tensor<?x?xf32>
  call @print(%mp) : (tensor<?x?xf32>) -> ()

  // CHECK: data =
  // CHECK-NEXT: [142]
  %mk = call @matmul_packed(%a, %b) : (tensor<37x29xf32>, tensor<29x53xf32>) -> tensor<37x53xf32>
  %mkp = tensor.cast %mk : tensor<37x53xf32> to tensor<?x?xf32>
  call @print(%mkp) : (tensor<?x?xf32>) -> ()

  // CHECK: data =
  // CHECK-NEXT: [460800]
  %a1 = call @input2(%c70, %c96, %c2, %c1) : (index, index, index, index) -> tensor<?x?xf32>
  %b1 = call @input2(%c96, %c80, %c1, %c5) : (index, index, index, index) -> tensor<?x?xf32>
  %bias0 = call @input2(%c1, %c80, %c1, %c3) : (index, index, index, index) -> tensor<?x?xf32>
  %a1s = tensor.cast %a1 : tensor<?x?xf32> to tensor<70x96xf32>
  %b1s = tensor.cast %b1 : tensor<?x?xf32> to tensor<96x80xf32>
  %bias1 = tensor.collapse_shape %bias0 [[0, 1]] : tensor<?x?xf32> into tensor<?xf32>
  %bias = tensor.cast %bias1 : tensor<?xf32> to tensor<80xf32>
  %r = call @matmul_bias_relu(%a1s, %b1s, %bias) : (tensor<70x96xf32>, tensor<96x80xf32>, tensor<80xf32>) -> tensor<70x80xf32>
  %rp = tensor.cast %r : tensor<70x80xf32> to tensor<?x?xf32>
  call @print(%rp) : (tensor<?x?xf32>) -> ()

  // CHECK: data =
  // CHECK-NEXT: [460800]
  %rwh = call @matmul_bias_relu_whole(%a1s, %b1s, %bias) : (tensor<70x96xf32>, tensor<96x80xf32>, tensor<80xf32>) -> tensor<70x80xf32>
  %rwhp = tensor.cast %rwh : tensor<70x80xf32> to tensor<?x?xf32>
  call @print(%rwhp) : (tensor<?x?xf32>) -> ()

  // CHECK: data =
  // CHECK-NEXT: [6062]
  %x0 = call @input2(%c8, %c225, %c1, %c2) : (index, index, index, index) -> tensor<?x?xf32>
  %w0 = call @input2(%c16, %c72, %c2, %c1) : (index, index, index, index) -> tensor<?x?xf32>
  %cb0 = call @input2(%c1, %c16, %c1, %c1) : (index, index, index, index) -> tensor<?x?xf32>
  %x1 = tensor.cast %x0 : tensor<?x?xf32> to tensor<8x225xf32>
  %x = tensor.expand_shape %x1 [[0, 1], [2, 3]] output_shape [1, 8, 15, 15] : tensor<8x225xf32> into tensor<1x8x15x15xf32>
  %w1 = tensor.cast %w0 : tensor<?x?xf32> to tensor<16x72xf32>
  %w = tensor.expand_shape %w1 [[0], [1, 2, 3]] output_shape [16, 8, 3, 3] : tensor<16x72xf32> into tensor<16x8x3x3xf32>
  %cb1 = tensor.collapse_shape %cb0 [[0, 1]] : tensor<?x?xf32> into tensor<?xf32>
  %cb = tensor.cast %cb1 : tensor<?xf32> to tensor<16xf32>
  %y = call @conv(%x, %w, %cb) : (tensor<1x8x15x15xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x7x7xf32>
  %y2 = tensor.collapse_shape %y [[0, 1], [2, 3]] : tensor<1x16x7x7xf32> into tensor<16x49xf32>
  %yp = tensor.cast %y2 : tensor<16x49xf32> to tensor<?x?xf32>
  call @print(%yp) : (tensor<?x?xf32>) -> ()

  // CHECK: data =
  // CHECK-NEXT: [8601]
  %c6 = arith.constant 6 : index
  %c20 = arith.constant 20 : index
  %c54 = arith.constant 54 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %rx0 = call @input2(%c6, %c100, %c1, %c2) : (index, index, index, index) -> tensor<?x?xf32>
  %rw0 = call @input2(%c20, %c54, %c2, %c1) : (index, index, index, index) -> tensor<?x?xf32>
  %rb0 = call @input2(%c1, %c20, %c1, %c1) : (index, index, index, index) -> tensor<?x?xf32>
  %rr0 = call @input2(%c20, %c64, %c1, %c3) : (index, index, index, index) -> tensor<?x?xf32>
  %rx1 = tensor.cast %rx0 : tensor<?x?xf32> to tensor<6x100xf32>
  %rx = tensor.expand_shape %rx1 [[0, 1], [2, 3]] output_shape [1, 6, 10, 10] : tensor<6x100xf32> into tensor<1x6x10x10xf32>
  %rw1 = tensor.cast %rw0 : tensor<?x?xf32> to tensor<20x54xf32>
  %rw = tensor.expand_shape %rw1 [[0], [1, 2, 3]] output_shape [20, 6, 3, 3] : tensor<20x54xf32> into tensor<20x6x3x3xf32>
  %rb1 = tensor.collapse_shape %rb0 [[0, 1]] : tensor<?x?xf32> into tensor<?xf32>
  %rb = tensor.cast %rb1 : tensor<?xf32> to tensor<20xf32>
  %rr1 = tensor.cast %rr0 : tensor<?x?xf32> to tensor<20x64xf32>
  %rr = tensor.expand_shape %rr1 [[0, 1], [2, 3]] output_shape [1, 20, 8, 8] : tensor<20x64xf32> into tensor<1x20x8x8xf32>
  %ry = call @conv_residual(%rx, %rw, %rb, %rr) : (tensor<1x6x10x10xf32>, tensor<20x6x3x3xf32>, tensor<20xf32>, tensor<1x20x8x8xf32>) -> tensor<1x20x8x8xf32>
  %ry2 = tensor.collapse_shape %ry [[0, 1], [2, 3]] : tensor<1x20x8x8xf32> into tensor<20x64xf32>
  %ryp = tensor.cast %ry2 : tensor<20x64xf32> to tensor<?x?xf32>
  call @print(%ryp) : (tensor<?x?xf32>) -> ()

  // CHECK: data =
  // CHECK-NEXT: [-18]
  %c13 = arith.constant 13 : index
  %c81 = arith.constant 81 : index
  %px0 = call @input2(%c13, %c81, %c1, %c2) : (index, index, index, index) -> tensor<?x?xf32>
  %pw0 = call @input2(%c20, %c13, %c2, %c1) : (index, index, index, index) -> tensor<?x?xf32>
  %px1 = tensor.cast %px0 : tensor<?x?xf32> to tensor<13x81xf32>
  %px = tensor.expand_shape %px1 [[0, 1], [2, 3]] output_shape [1, 13, 9, 9] : tensor<13x81xf32> into tensor<1x13x9x9xf32>
  %pw1 = tensor.cast %pw0 : tensor<?x?xf32> to tensor<20x13xf32>
  %pw = tensor.expand_shape %pw1 [[0], [1, 2, 3]] output_shape [20, 13, 1, 1] : tensor<20x13xf32> into tensor<20x13x1x1xf32>
  %py = call @conv_1x1(%px, %pw) : (tensor<1x13x9x9xf32>, tensor<20x13x1x1xf32>) -> tensor<1x20x5x5xf32>
  %py2 = tensor.collapse_shape %py [[0, 1], [2, 3]] : tensor<1x20x5x5xf32> into tensor<20x25xf32>
  %pyp = tensor.cast %py2 : tensor<20x25xf32> to tensor<?x?xf32>
  call @print(%pyp) : (tensor<?x?xf32>) -> ()
  return
}
