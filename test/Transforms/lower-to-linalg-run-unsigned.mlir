// Runs the lowering of ops on unsigned element types (computed on as
// signless, with the unsigned arith ops): int21 -> linalg -> loops -> LLVM,
// executed by mlir-runner; results are printed through a cast to f32.
// RUN: int21-opt %s -int21-lower-to-linalg --transform-preload-library=transform-library-paths=%S/Inputs/decompose-aggregates.mlir --transform-interpreter -one-shot-bufferize="bufferize-function-boundaries" -convert-linalg-to-loops -convert-scf-to-cf -expand-strided-metadata -lower-affine -finalize-memref-to-llvm -convert-math-to-llvm -convert-arith-to-llvm -convert-cf-to-llvm -convert-func-to-llvm -reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @print_f32(%t: tensor<4xf32>) {
  %u = tensor.cast %t : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

// The values come in as arguments, so that the int21 folders cannot
// compute the results before the lowering does.
func.func @check(
    %a_bits: tensor<4xi8>,
    %b_bits: tensor<4xi8>,
    %n_bits: tensor<4xi8>,
    %d_bits: tensor<4xi8>,
    %x_bits: tensor<4xi8>,
    %y_bits: tensor<4xi8>,
    %p_bits: tensor<4xi16>,
    %q_bits: tensor<4xi16>,
    %m_bits: tensor<4xi32>,
    %k_bits: tensor<4xi32>,
    %u_bits: tensor<4xi8>,
    %g: tensor<4xf32>,
    %s: tensor<4xi8>,
    %r_bits: tensor<2x3xi8>,
    %ml_bits: tensor<1x2xi8>,
    %mr_bits: tensor<2x1xi8>,
    %two_bits: tensor<2xi8>) {
  %a = int21.cast %a_bits : tensor<4xi8> to tensor<4xui8>
  %b = int21.cast %b_bits : tensor<4xi8> to tensor<4xui8>
  %n = int21.cast %n_bits : tensor<4xi8> to tensor<4xui8>
  %d = int21.cast %d_bits : tensor<4xi8> to tensor<4xui8>
  %x = int21.cast %x_bits : tensor<4xi8> to tensor<4xui8>
  %y = int21.cast %y_bits : tensor<4xi8> to tensor<4xui8>
  %p = int21.cast %p_bits : tensor<4xi16> to tensor<4xui16>
  %q = int21.cast %q_bits : tensor<4xi16> to tensor<4xui16>
  %m = int21.cast %m_bits : tensor<4xi32> to tensor<4xui32>
  %k = int21.cast %k_bits : tensor<4xi32> to tensor<4xui32>
  %u = int21.cast %u_bits : tensor<4xi8> to tensor<4xui8>
  %r = int21.cast %r_bits : tensor<2x3xi8> to tensor<2x3xui8>
  %ml = int21.cast %ml_bits : tensor<1x2xi8> to tensor<1x2xui8>
  %mr = int21.cast %mr_bits : tensor<2x1xi8> to tensor<2x1xui8>
  %two = int21.cast %two_bits : tensor<2xi8> to tensor<2xui8>

  // Addition wraps modulo 256.
  // CHECK: sizes = [4]
  // CHECK-NEXT: [44, 200, 0, 3]
  %0 = int21.add %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %p0 = int21.cast %0 : tensor<4xui8> to tensor<4xf32>
  call @print_f32(%p0) : (tensor<4xf32>) -> ()

  // Division is unsigned: 250 / 3 = 83 (as signed, -6 / 3 = -2).
  // CHECK: sizes = [4]
  // CHECK-NEXT: [83, 2, 15, 3]
  %1 = int21.div %n, %d : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %p1 = int21.cast %1 : tensor<4xui8> to tensor<4xf32>
  call @print_f32(%p1) : (tensor<4xf32>) -> ()

  // Max and min order values above 127 above the others.
  // CHECK: sizes = [4]
  // CHECK-NEXT: [200, 250, 128, 128]
  // CHECK: sizes = [4]
  // CHECK-NEXT: [100, 10, 127, 127]
  %2 = int21.max %x, %y : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %p2 = int21.cast %2 : tensor<4xui8> to tensor<4xf32>
  call @print_f32(%p2) : (tensor<4xf32>) -> ()
  %3 = int21.min %x, %y : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %p3 = int21.cast %3 : tensor<4xui8> to tensor<4xf32>
  call @print_f32(%p3) : (tensor<4xf32>) -> ()

  // ui16 comparisons: 40000 > 1 and 32768 > 32767.
  // CHECK: sizes = [4]
  // CHECK-NEXT: [0, 1, 0, 0]
  // CHECK: sizes = [4]
  // CHECK-NEXT: [1, 0, 1, 1]
  %4 = int21.less %p, %q : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xi1>
  %f4 = int21.cast %4 : tensor<4xi1> to tensor<4xf32>
  call @print_f32(%f4) : (tensor<4xf32>) -> ()
  %5 = int21.greater_equal %p, %q : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xi1>
  %f5 = int21.cast %5 : tensor<4xi1> to tensor<4xf32>
  call @print_f32(%f5) : (tensor<4xf32>) -> ()

  // ui32 mod is the plain remainder: 4000000000 = 7 * 571428571 + 3.
  // CHECK: sizes = [4]
  // CHECK-NEXT: [3, 1, 0, 0]
  %6 = int21.mod %m, %k : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  %f6 = int21.cast %6 : tensor<4xui32> to tensor<4xf32>
  call @print_f32(%f6) : (tensor<4xf32>) -> ()

  // ui8 -> f32 is uitofp; f32 -> ui8 is fptoui (truncating toward zero).
  // CHECK: sizes = [4]
  // CHECK-NEXT: [255, 128, 0, 1]
  %pu = int21.cast %u : tensor<4xui8> to tensor<4xf32>
  call @print_f32(%pu) : (tensor<4xf32>) -> ()
  // CHECK: sizes = [4]
  // CHECK-NEXT: [200, 255, 0, 128]
  %7 = int21.cast %g : tensor<4xf32> to tensor<4xui8>
  %p7 = int21.cast %7 : tensor<4xui8> to tensor<4xf32>
  call @print_f32(%p7) : (tensor<4xf32>) -> ()

  // Integer casts: ui8 zero-extends to i32, i8 sign-extends to ui16, and
  // ui16 -> ui8 truncates.
  // CHECK: sizes = [4]
  // CHECK-NEXT: [255, 128, 0, 1]
  // CHECK: sizes = [4]
  // CHECK-NEXT: [65535, 65408, 0, 1]
  // CHECK: sizes = [4]
  // CHECK-NEXT: [64, 1, 0, 5]
  %8 = int21.cast %u : tensor<4xui8> to tensor<4xi32>
  %f8 = int21.cast %8 : tensor<4xi32> to tensor<4xf32>
  call @print_f32(%f8) : (tensor<4xf32>) -> ()
  %9 = int21.cast %s : tensor<4xi8> to tensor<4xui16>
  %f9 = int21.cast %9 : tensor<4xui16> to tensor<4xf32>
  call @print_f32(%f9) : (tensor<4xf32>) -> ()
  %10 = int21.cast %p : tensor<4xui16> to tensor<4xui8>
  %p10 = int21.cast %10 : tensor<4xui8> to tensor<4xf32>
  call @print_f32(%p10) : (tensor<4xf32>) -> ()

  // Abs and relu are the identity, sign is 0 or 1.
  // CHECK: sizes = [4]
  // CHECK-NEXT: [200, 100, 255, 1]
  // CHECK: sizes = [4]
  // CHECK-NEXT: [200, 100, 255, 1]
  // CHECK: sizes = [4]
  // CHECK-NEXT: [1, 0, 1, 1]
  %11 = int21.abs %a : tensor<4xui8>
  %p11 = int21.cast %11 : tensor<4xui8> to tensor<4xf32>
  call @print_f32(%p11) : (tensor<4xf32>) -> ()
  %12 = int21.relu %a : tensor<4xui8>
  %p12 = int21.cast %12 : tensor<4xui8> to tensor<4xf32>
  call @print_f32(%p12) : (tensor<4xf32>) -> ()
  %13 = int21.sign %u : tensor<4xui8>
  %r13 = int21.reshape %13 : tensor<4xui8> to tensor<2x2xui8>
  %t13 = int21.transpose %r13 {perm = array<i64: 1, 0>} : (tensor<2x2xui8>) -> tensor<2x2xui8>
  %b13 = int21.reshape %t13 : tensor<2x2xui8> to tensor<4xui8>
  %pb13 = int21.cast %b13 : tensor<4xui8> to tensor<4xf32>
  call @print_f32(%pb13) : (tensor<4xf32>) -> ()

  // Reductions over values above 127, from the unsigned identities.
  // CHECK: sizes = [4]
  // CHECK-NEXT: [255, 200, 0, 10]
  %14 = int21.reduce_max %r {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xui8>) -> tensor<2xui8>
  %15 = int21.reduce_min %r {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xui8>) -> tensor<2xui8>
  %16 = int21.concat %15, %14 {axis = 0 : i64} : (tensor<2xui8>, tensor<2xui8>) -> tensor<4xui8>
  %17 = int21.slice %16 {starts = array<i64: 3>, sizes = array<i64: 4>, steps = array<i64: -1>} : (tensor<4xui8>) -> tensor<4xui8>
  %p17 = int21.cast %17 : tensor<4xui8> to tensor<4xf32>
  call @print_f32(%p17) : (tensor<4xf32>) -> ()

  // Argmax and argmin compare as unsigned.
  // CHECK: sizes = [4]
  // CHECK-NEXT: [1, 0, 0, 1]
  %18 = int21.argmax %r {axis = 1 : i64, keepdims = false, select_last_index = false} : (tensor<2x3xui8>) -> tensor<2xi64>
  %19 = int21.argmin %r {axis = 1 : i64, keepdims = false, select_last_index = false} : (tensor<2x3xui8>) -> tensor<2xi64>
  %20 = int21.concat %18, %19 {axis = 0 : i64} : (tensor<2xi64>, tensor<2xi64>) -> tensor<4xi64>
  %f20 = int21.cast %20 : tensor<4xi64> to tensor<4xf32>
  call @print_f32(%f20) : (tensor<4xf32>) -> ()

  // Matmul wraps like addition: [200, 100] . [[2], [1]] = 500 mod 256 = 244,
  // broadcast to two elements, then 244 + 100 wraps to 88.
  // CHECK: sizes = [4]
  // CHECK-NEXT: [244, 244, 88, 88]
  %21 = int21.matmul %ml, %mr : (tensor<1x2xui8>, tensor<2x1xui8>) -> tensor<1x1xui8>
  %e21 = int21.expand %21 : tensor<1x1xui8> to tensor<1x2xui8>
  %c21 = int21.reshape %e21 : tensor<1x2xui8> to tensor<2xui8>
  %plus = int21.add %c21, %two : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  %22 = int21.concat %c21, %plus {axis = 0 : i64} : (tensor<2xui8>, tensor<2xui8>) -> tensor<4xui8>
  %p22 = int21.cast %22 : tensor<4xui8> to tensor<4xf32>
  call @print_f32(%p22) : (tensor<4xf32>) -> ()

  // Shifts: 255 << 3 wraps to 248, a shift by 100 (the width or more)
  // leaves 0, and right shifts are logical (255 >> 1 = 127).
  // CHECK: sizes = [4]
  // CHECK-NEXT: [248, 0, 0, 4]
  // CHECK: sizes = [4]
  // CHECK-NEXT: [0, 0, 127, 1]
  %23 = int21.shift_left %u, %d : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %p23 = int21.cast %23 : tensor<4xui8> to tensor<4xf32>
  call @print_f32(%p23) : (tensor<4xf32>) -> ()
  %24 = int21.shift_right %n, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %p24 = int21.cast %24 : tensor<4xui8> to tensor<4xf32>
  call @print_f32(%p24) : (tensor<4xf32>) -> ()

  // Max pooling (1x2 windows) compares as unsigned: 200 beats 10.
  // CHECK: sizes = [4]
  // CHECK-NEXT: [200, 200, 255, 127]
  %r25 = int21.reshape %r : tensor<2x3xui8> to tensor<1x1x2x3xui8>
  %25 = int21.max_pool %r25 {kernel_shape = array<i64: 1, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x2x3xui8>) -> tensor<1x1x2x2xui8>
  %c25 = int21.reshape %25 : tensor<1x1x2x2xui8> to tensor<4xui8>
  %p25 = int21.cast %c25 : tensor<4xui8> to tensor<4xf32>
  call @print_f32(%p25) : (tensor<4xf32>) -> ()
  return
}

// The operands; those that @check reads as unsigned come as their bits.
func.func @main() {
  %a = int21.constant dense<[200, 100, 255, 1]> : tensor<4xi8>
  %b = int21.constant dense<[100, 100, 1, 2]> : tensor<4xi8>
  %n = int21.constant dense<[250, 200, 255, 7]> : tensor<4xi8>
  %d = int21.constant dense<[3, 100, 16, 2]> : tensor<4xi8>
  %x = int21.constant dense<[200, 10, 128, 127]> : tensor<4xi8>
  %y = int21.constant dense<[100, 250, 127, 128]> : tensor<4xi8>
  %p = int21.constant dense<[40000, 1, 32768, 5]> : tensor<4xi16>
  %q = int21.constant dense<[1, 40000, 32767, 5]> : tensor<4xi16>
  %m = int21.constant dense<[4000000000, 7, 10, 0]> : tensor<4xi32>
  %k = int21.constant dense<[7, 3, 10, 5]> : tensor<4xi32>
  %u = int21.constant dense<[255, 128, 0, 1]> : tensor<4xi8>
  %g = int21.constant dense<[200.7, 255.0, 0.3, 128.0]> : tensor<4xf32>
  %s = int21.constant dense<[-1, -128, 0, 1]> : tensor<4xi8>
  %r = int21.constant dense<[[10, 200, 130], [255, 0, 127]]> : tensor<2x3xi8>
  %ml = int21.constant dense<[[200, 100]]> : tensor<1x2xi8>
  %mr = int21.constant dense<[[2], [1]]> : tensor<2x1xi8>
  %two = int21.constant dense<[100, 100]> : tensor<2xi8>
  call @check(%a, %b, %n, %d, %x, %y, %p, %q, %m,
              %k, %u, %g, %s, %r, %ml, %mr, %two)
      : (tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi8>,
         tensor<4xi16>, tensor<4xi16>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<4xf32>,
         tensor<4xi8>, tensor<2x3xi8>, tensor<1x2xi8>, tensor<2x1xi8>, tensor<2xi8>) -> ()
  return
}
