// RUN: int21-opt %s -canonicalize -split-input-file | FileCheck %s

// Folders and canonicalisation patterns of the int21 dialect.

//===----------------------------------------------------------------------===//
// Constant folding of add, sub, mul and div
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @add_broadcast
// CHECK-NEXT: [[C:%.+]] = int21.constant dense<{{\[}}[11, 12, 13], [21, 22, 23]]> : tensor<2x3xi32>
// CHECK-NEXT: return [[C]]
func.func @add_broadcast() -> tensor<2x3xi32> {
  %0 = int21.constant dense<[1, 2, 3]> : tensor<3xi32>
  %1 = int21.constant dense<[[10], [20]]> : tensor<2x1xi32>
  %2 = int21.add %0, %1 : (tensor<3xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
  return %2 : tensor<2x3xi32>
}

// -----

// CHECK-LABEL: func.func @add_splats
// CHECK-NEXT: [[C:%.+]] = int21.constant dense<3.500000e+00> : tensor<2x2xf32>
// CHECK-NEXT: return [[C]]
func.func @add_splats() -> tensor<2x2xf32> {
  %0 = int21.constant dense<1.5> : tensor<2x2xf32>
  %1 = int21.constant dense<2.0> : tensor<2x2xf32>
  %2 = int21.add %0, %1 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %2 : tensor<2x2xf32>
}

// -----

// Splats of different shapes broadcast to a splat of the result shape.
// CHECK-LABEL: func.func @sub_splats_broadcast
// CHECK-NEXT: [[C:%.+]] = int21.constant dense<5> : tensor<2x3xi64>
// CHECK-NEXT: return [[C]]
func.func @sub_splats_broadcast() -> tensor<2x3xi64> {
  %0 = int21.constant dense<7> : tensor<3xi64>
  %1 = int21.constant dense<2> : tensor<2x1xi64>
  %2 = int21.sub %0, %1 : (tensor<3xi64>, tensor<2x1xi64>) -> tensor<2x3xi64>
  return %2 : tensor<2x3xi64>
}

// -----

// A splat folds to a splat however many elements it stands for.
// CHECK-LABEL: func.func @mul_huge_splats
// CHECK-NEXT: [[C:%.+]] = int21.constant dense<3.000000e+00> : tensor<100000x100000xf32>
// CHECK-NEXT: return [[C]]
func.func @mul_huge_splats() -> tensor<100000x100000xf32> {
  %0 = int21.constant dense<1.5> : tensor<100000x100000xf32>
  %1 = int21.constant dense<2.0> : tensor<100000x1xf32>
  %2 = int21.mul %0, %1 : (tensor<100000x100000xf32>, tensor<100000x1xf32>) -> tensor<100000x100000xf32>
  return %2 : tensor<100000x100000xf32>
}

// -----

// CHECK-LABEL: func.func @sub_mul_float
// CHECK-DAG: [[SUB:%.+]] = int21.constant dense<[5.000000e-01, 2.000000e+00, -5.000000e+00]> : tensor<3xf32>
// CHECK-DAG: [[MUL:%.+]] = int21.constant dense<[5.000000e-01, 1.250000e+00, -6.000000e+00]> : tensor<3xf32>
// CHECK-NOT: int21.sub
// CHECK-NOT: int21.mul
// CHECK: return [[SUB]], [[MUL]]
func.func @sub_mul_float() -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = int21.constant dense<[1.0, 2.5, -3.0]> : tensor<3xf32>
  %1 = int21.constant dense<[0.5, 0.5, 2.0]> : tensor<3xf32>
  %2 = int21.sub %0, %1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %3 = int21.mul %0, %1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %2, %3 : tensor<3xf32>, tensor<3xf32>
}

// -----

// Signed division truncates toward zero, unsigned division is unsigned, and
// float division by zero gives an infinity.
// CHECK-LABEL: func.func @div
// CHECK-DAG: [[S:%.+]] = int21.constant dense<[-3, -3, 3, 3]> : tensor<4xi32>
// CHECK-DAG: [[U:%.+]] = int21.constant dense<[66, 15]> : tensor<2xui8>
// CHECK-DAG: [[F:%.+]] = int21.constant dense<[2.500000e-01, 0xFF800000]> : tensor<2xf32>
// CHECK-NOT: int21.div
// CHECK: return [[S]], [[U]], [[F]]
func.func @div() -> (tensor<4xi32>, tensor<2xui8>, tensor<2xf32>) {
  %0 = int21.constant dense<[-7, 7, -7, 7]> : tensor<4xi32>
  %1 = int21.constant dense<[2, -2, -2, 2]> : tensor<4xi32>
  %2 = int21.div %0, %1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = int21.constant dense<[200, 255]> : tensor<2xui8>
  %4 = int21.constant dense<[3, 16]> : tensor<2xui8>
  %5 = int21.div %3, %4 : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  %6 = int21.constant dense<[1.0, -3.0]> : tensor<2xf32>
  %7 = int21.constant dense<[4.0, 0.0]> : tensor<2xf32>
  %8 = int21.div %6, %7 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %2, %5, %8 : tensor<4xi32>, tensor<2xui8>, tensor<2xf32>
}

// -----

// Integer division by zero and INT_MIN / -1 are left for run time.
// CHECK-LABEL: func.func @div_not_folded
// CHECK-DAG: [[NUM:%.+]] = int21.constant dense<[4, 6]> : tensor<2xi32>
// CHECK-DAG: [[DEN:%.+]] = int21.constant dense<[2, 0]> : tensor<2xi32>
// CHECK-DAG: [[MIN:%.+]] = int21.constant dense<-128> : tensor<1xi8>
// CHECK-DAG: [[M1:%.+]] = int21.constant dense<-1> : tensor<1xi8>
// CHECK: [[D0:%.+]] = int21.div [[NUM]], [[DEN]]
// CHECK: [[D1:%.+]] = int21.div [[MIN]], [[M1]]
// CHECK: return [[D0]], [[D1]]
func.func @div_not_folded() -> (tensor<2xi32>, tensor<1xi8>) {
  %0 = int21.constant dense<[4, 6]> : tensor<2xi32>
  %1 = int21.constant dense<[2, 0]> : tensor<2xi32>
  %2 = int21.div %0, %1 : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %3 = int21.constant dense<-128> : tensor<1xi8>
  %4 = int21.constant dense<-1> : tensor<1xi8>
  %5 = int21.div %3, %4 : (tensor<1xi8>, tensor<1xi8>) -> tensor<1xi8>
  return %2, %5 : tensor<2xi32>, tensor<1xi8>
}

//===----------------------------------------------------------------------===//
// Identities
//===----------------------------------------------------------------------===//

// -----

// x + 0, 0 + x (commutative), x - 0 for integers; x + -0.0 for floats; x * 1,
// 1 * x and x / 1 for both, with the constant broadcast to x's shape.
// CHECK-LABEL: func.func @identities
// CHECK-SAME: ([[I:%.+]]: tensor<2x3xi32>, [[F:%.+]]: tensor<2x3xf32>)
// CHECK-NOT: int21.
// CHECK: return [[I]], [[I]], [[I]], [[F]], [[I]], [[F]], [[I]], [[F]] :
func.func @identities(%i: tensor<2x3xi32>, %f: tensor<2x3xf32>)
    -> (tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xf32>,
        tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>) {
  %zi = int21.constant dense<0> : tensor<3xi32>
  %oi = int21.constant dense<1> : tensor<2x3xi32>
  %nz = int21.constant dense<-0.0> : tensor<1xf32>
  %of = int21.constant dense<1.0> : tensor<f32>
  %0 = int21.add %i, %zi : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %1 = int21.add %zi, %i : (tensor<3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %2 = int21.sub %i, %zi : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %3 = int21.add %f, %nz : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  %4 = int21.mul %i, %oi : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %5 = int21.mul %of, %f : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = int21.div %i, %oi : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %7 = int21.div %f, %of : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7
      : tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xf32>,
        tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>
}

// -----

// Not identities: x + 0.0 is +0.0 for x = -0.0; x + 0 that broadcasts x to a
// larger shape; 1 / x; 1 - x.
// CHECK-LABEL: func.func @no_identities
// CHECK-SAME: ([[I:%.+]]: tensor<3xi32>, [[F:%.+]]: tensor<3xf32>)
// CHECK-DAG: [[ZF:%.+]] = int21.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-DAG: [[ZI:%.+]] = int21.constant dense<0> : tensor<2x3xi32>
// CHECK-DAG: [[ONE:%.+]] = int21.constant dense<1> : tensor<3xi32>
// CHECK: [[A0:%.+]] = int21.add [[F]], [[ZF]]
// CHECK: [[A1:%.+]] = int21.add [[F]], [[ZF]]
// CHECK: [[A2:%.+]] = int21.add [[I]], [[ZI]]
// CHECK: [[D:%.+]] = int21.div [[ONE]], [[I]]
// CHECK: [[S:%.+]] = int21.sub [[ONE]], [[I]]
// CHECK: return [[A0]], [[A1]], [[A2]], [[D]], [[S]] :
func.func @no_identities(%i: tensor<3xi32>, %f: tensor<3xf32>)
    -> (tensor<3xf32>, tensor<3xf32>, tensor<2x3xi32>, tensor<3xi32>, tensor<3xi32>) {
  %zf = int21.constant dense<0.0> : tensor<3xf32>
  %zi = int21.constant dense<0> : tensor<2x3xi32>
  %oi = int21.constant dense<1> : tensor<3xi32>
  %0 = int21.add %f, %zf : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = int21.add %zf, %f : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = int21.add %i, %zi : (tensor<3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %3 = int21.div %oi, %i : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %4 = int21.sub %oi, %i : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %0, %1, %2, %3, %4 : tensor<3xf32>, tensor<3xf32>, tensor<2x3xi32>, tensor<3xi32>, tensor<3xi32>
}

// -----

// x - 0.0 is x in IEEE arithmetic, but only the integer case is folded.
// CHECK-LABEL: func.func @float_sub_zero_not_folded
// CHECK: int21.sub
func.func @float_sub_zero_not_folded(%f: tensor<3xf32>) -> tensor<3xf32> {
  %z = int21.constant dense<0.0> : tensor<3xf32>
  %0 = int21.sub %f, %z : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

//===----------------------------------------------------------------------===//
// int21.cast
//===----------------------------------------------------------------------===//

// -----

// ONNX Cast: float to integer truncates toward zero; float to bool is
// "non-zero"; unsigned integers zero-extend, signed ones sign-extend; integer
// narrowing wraps; float narrowing rounds to nearest.
// CHECK-LABEL: func.func @cast_fold
// CHECK-DAG: [[TRUNC:%.+]] = int21.constant dense<[1, -1, 2, 0]> : tensor<4xi32>
// CHECK-DAG: [[BOOL:%.+]] = int21.constant dense<[false, false, true]> : tensor<3xi1>
// CHECK-DAG: [[UF:%.+]] = int21.constant dense<[2.550000e+02, 0.000000e+00, 1.000000e+00, 1.280000e+02]> : tensor<4xf32>
// CHECK-DAG: [[SF:%.+]] = int21.constant dense<[-1.000000e+00, 1.270000e+02]> : tensor<2xf32>
// CHECK-DAG: [[WRAP:%.+]] = int21.constant dense<[44, 127]> : tensor<2xi8>
// CHECK-DAG: [[BU:%.+]] = int21.constant dense<[1, 0]> : tensor<2xui8>
// CHECK-DAG: [[HALF:%.+]] = int21.constant dense<[1.000000e+00, 9.997550e-02, 6.550400e+04]> : tensor<3xf16>
// CHECK-DAG: [[SPLAT:%.+]] = int21.constant dense<-2> : tensor<2x2xi64>
// CHECK-NOT: int21.cast
// CHECK: return [[TRUNC]], [[BOOL]], [[UF]], [[SF]], [[WRAP]], [[BU]], [[HALF]], [[SPLAT]] :
func.func @cast_fold() -> (tensor<4xi32>, tensor<3xi1>, tensor<4xf32>, tensor<2xf32>,
                           tensor<2xi8>, tensor<2xui8>, tensor<3xf16>, tensor<2x2xi64>) {
  %0 = int21.constant dense<[1.7, -1.7, 2.5, -0.5]> : tensor<4xf32>
  %1 = int21.cast %0 : tensor<4xf32> to tensor<4xi32>
  %2 = int21.constant dense<[0.0, -0.0, 0.25]> : tensor<3xf32>
  %3 = int21.cast %2 : tensor<3xf32> to tensor<3xi1>
  %4 = int21.constant dense<[255, 0, 1, 128]> : tensor<4xui8>
  %5 = int21.cast %4 : tensor<4xui8> to tensor<4xf32>
  %6 = int21.constant dense<[-1, 127]> : tensor<2xi8>
  %7 = int21.cast %6 : tensor<2xi8> to tensor<2xf32>
  %8 = int21.constant dense<[300, -129]> : tensor<2xi32>
  %9 = int21.cast %8 : tensor<2xi32> to tensor<2xi8>
  %10 = int21.constant dense<[true, false]> : tensor<2xi1>
  %11 = int21.cast %10 : tensor<2xi1> to tensor<2xui8>
  %12 = int21.constant dense<[1.0, 0.1, 65504.0]> : tensor<3xf64>
  %13 = int21.cast %12 : tensor<3xf64> to tensor<3xf16>
  %14 = int21.constant dense<-2.9> : tensor<2x2xf32>
  %15 = int21.cast %14 : tensor<2x2xf32> to tensor<2x2xi64>
  return %1, %3, %5, %7, %9, %11, %13, %15
      : tensor<4xi32>, tensor<3xi1>, tensor<4xf32>, tensor<2xf32>,
        tensor<2xi8>, tensor<2xui8>, tensor<3xf16>, tensor<2x2xi64>
}

// -----

// CHECK-LABEL: func.func @cast_same_type
// CHECK-SAME: ([[X:%.+]]: tensor<4xf32>)
// CHECK-NEXT: return [[X]]
func.func @cast_same_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = int21.cast %x : tensor<4xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Out-of-range and NaN values have no integer to fold to.
// CHECK-LABEL: func.func @cast_not_folded
// CHECK-COUNT-3: int21.cast
func.func @cast_not_folded() -> (tensor<2xi8>, tensor<2xi32>, tensor<2xui8>) {
  %0 = int21.constant dense<[1.0, 300.0]> : tensor<2xf32>
  %1 = int21.cast %0 : tensor<2xf32> to tensor<2xi8>
  %2 = int21.constant dense<[1.0, 0x7FC00000]> : tensor<2xf32>
  %3 = int21.cast %2 : tensor<2xf32> to tensor<2xi32>
  %4 = int21.constant dense<-1.0> : tensor<2xf32>
  %5 = int21.cast %4 : tensor<2xf32> to tensor<2xui8>
  return %1, %3, %5 : tensor<2xi8>, tensor<2xi32>, tensor<2xui8>
}

//===----------------------------------------------------------------------===//
// int21.transpose
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME: ([[X:%.+]]: tensor<2x3xf32>)
// CHECK-NEXT: return [[X]]
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = int21.transpose %x {perm = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Two transposes compose into one; inverse permutations cancel.
// CHECK-LABEL: func.func @transpose_of_transpose
// CHECK-SAME: ([[X:%.+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: [[T:%.+]] = int21.transpose [[X]] {perm = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
// CHECK-NEXT: return [[T]], [[X]]
func.func @transpose_of_transpose(%x: tensor<2x3x4xf32>) -> (tensor<3x4x2xf32>, tensor<2x3x4xf32>) {
  %0 = int21.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = int21.transpose %0 {perm = array<i64: 2, 0, 1>} : (tensor<4x2x3xf32>) -> tensor<3x4x2xf32>
  %2 = int21.transpose %x {perm = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %3 = int21.transpose %2 {perm = array<i64: 2, 0, 1>} : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
  return %1, %3 : tensor<3x4x2xf32>, tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_of_constant
// CHECK-DAG: [[T:%.+]] = int21.constant dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
// CHECK-DAG: [[S:%.+]] = int21.constant dense<2.000000e+00> : tensor<4x1x3xf32>
// CHECK-NOT: int21.transpose
// CHECK: return [[T]], [[S]]
func.func @transpose_of_constant() -> (tensor<3x2xi32>, tensor<4x1x3xf32>) {
  %0 = int21.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %1 = int21.transpose %0 {perm = array<i64: 1, 0>} : (tensor<2x3xi32>) -> tensor<3x2xi32>
  %2 = int21.constant dense<2.0> : tensor<3x4x1xf32>
  %3 = int21.transpose %2 {perm = array<i64: 1, 2, 0>} : (tensor<3x4x1xf32>) -> tensor<4x1x3xf32>
  return %1, %3 : tensor<3x2xi32>, tensor<4x1x3xf32>
}

//===----------------------------------------------------------------------===//
// int21.reshape
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @reshape_same_type
// CHECK-SAME: ([[X:%.+]]: tensor<2x3xf32>)
// CHECK-NEXT: return [[X]]
func.func @reshape_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = int21.reshape %x : tensor<2x3xf32> to tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A reshape of a reshape reads the original; a round trip disappears.
// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME: ([[X:%.+]]: tensor<2x3xf32>)
// CHECK-NEXT: [[R:%.+]] = int21.reshape [[X]] : tensor<2x3xf32> to tensor<3x2xf32>
// CHECK-NEXT: return [[R]], [[X]]
func.func @reshape_of_reshape(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %0 = int21.reshape %x : tensor<2x3xf32> to tensor<6xf32>
  %1 = int21.reshape %0 : tensor<6xf32> to tensor<3x2xf32>
  %2 = int21.reshape %x : tensor<2x3xf32> to tensor<1x6xf32>
  %3 = int21.reshape %2 : tensor<1x6xf32> to tensor<2x3xf32>
  return %1, %3 : tensor<3x2xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_of_constant
// CHECK-DAG: [[D:%.+]] = int21.constant dense<{{\[}}[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
// CHECK-DAG: [[S:%.+]] = int21.constant dense<5.000000e-01> : tensor<1x4xf32>
// CHECK-NOT: int21.reshape
// CHECK: return [[D]], [[S]]
func.func @reshape_of_constant() -> (tensor<3x2xi32>, tensor<1x4xf32>) {
  %0 = int21.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %1 = int21.reshape %0 : tensor<2x3xi32> to tensor<3x2xi32>
  %2 = int21.constant dense<0.5> : tensor<4xf32>
  %3 = int21.reshape %2 : tensor<4xf32> to tensor<1x4xf32>
  return %1, %3 : tensor<3x2xi32>, tensor<1x4xf32>
}

// -----

// A weight blob keeps its bytes and takes the new shape.
// CHECK-LABEL: func.func @reshape_of_dense_resource
// CHECK-NEXT: [[C:%.+]] = int21.constant dense_resource<blob1> : tensor<2x2xf32>
// CHECK-NEXT: return [[C]]
// CHECK: blob1: "0x040000000000803F000000400000404000008040"
func.func @reshape_of_dense_resource() -> tensor<2x2xf32> {
  %0 = int21.constant dense_resource<blob1> : tensor<4xf32>
  %1 = int21.reshape %0 : tensor<4xf32> to tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

//===----------------------------------------------------------------------===//
// int21.expand
//===----------------------------------------------------------------------===//

// -----

// Same type and splats fold; a non-splat constant is not expanded.
// CHECK-LABEL: func.func @expand
// CHECK-SAME: ([[X:%.+]]: tensor<2x3xf32>)
// CHECK-DAG: [[SPLAT:%.+]] = int21.constant dense<1.000000e+00> : tensor<4x2x3xf32>
// CHECK-DAG: [[C:%.+]] = int21.constant dense<[1, 2, 3]> : tensor<3xi32>
// CHECK: [[E:%.+]] = int21.expand [[C]] : tensor<3xi32> to tensor<2x3xi32>
// CHECK: return [[X]], [[SPLAT]], [[E]]
func.func @expand(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<4x2x3xf32>, tensor<2x3xi32>) {
  %0 = int21.expand %x : tensor<2x3xf32> to tensor<2x3xf32>
  %1 = int21.constant dense<1.0> : tensor<1x3xf32>
  %2 = int21.expand %1 : tensor<1x3xf32> to tensor<4x2x3xf32>
  %3 = int21.constant dense<[1, 2, 3]> : tensor<3xi32>
  %4 = int21.expand %3 : tensor<3xi32> to tensor<2x3xi32>
  return %0, %2, %4 : tensor<2x3xf32>, tensor<4x2x3xf32>, tensor<2x3xi32>
}

//===----------------------------------------------------------------------===//
// int21.concat
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @concat
// CHECK-SAME: ([[X:%.+]]: tensor<2x3xf32>)
// CHECK-DAG: [[C1:%.+]] = int21.constant dense<{{\[}}[1, 3, 4], [2, 5, 6]]> : tensor<2x3xi32>
// CHECK-DAG: [[C0:%.+]] = int21.constant dense<{{\[}}[3, 4], [5, 6], [7, 7]]> : tensor<3x2xi32>
// CHECK: [[XX:%.+]] = int21.concat [[X]], [[X]] {axis = 1 : i64}
// CHECK: return [[X]], [[C1]], [[C0]], [[XX]]
func.func @concat(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>, tensor<3x2xi32>, tensor<2x6xf32>) {
  %0 = int21.concat %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = int21.constant dense<[[1], [2]]> : tensor<2x1xi32>
  %b = int21.constant dense<[[3, 4], [5, 6]]> : tensor<2x2xi32>
  %1 = int21.concat %a, %b {axis = 1 : i64} : (tensor<2x1xi32>, tensor<2x2xi32>) -> tensor<2x3xi32>
  %c = int21.constant dense<7> : tensor<1x2xi32>
  %2 = int21.concat %b, %c {axis = 0 : i64} : (tensor<2x2xi32>, tensor<1x2xi32>) -> tensor<3x2xi32>
  %3 = int21.concat %x, %x {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xi32>, tensor<3x2xi32>, tensor<2x6xf32>
}

// -----

// Splats of any size may be inputs, but a result of more than 4096 elements is
// not folded.
// CHECK-LABEL: func.func @concat_large_result
// CHECK: int21.concat
func.func @concat_large_result() -> tensor<4097xi32> {
  %0 = int21.constant dense<1> : tensor<4096xi32>
  %1 = int21.constant dense<[2]> : tensor<1xi32>
  %2 = int21.concat %0, %1 {axis = 0 : i64} : (tensor<4096xi32>, tensor<1xi32>) -> tensor<4097xi32>
  return %2 : tensor<4097xi32>
}

//===----------------------------------------------------------------------===//
// int21.slice
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @slice
// CHECK-SAME: ([[X:%.+]]: tensor<2x3xf32>)
// CHECK-DAG: [[EMPTY:%.+]] = int21.constant dense<> : tensor<0x3xi32>
// CHECK-DAG: [[NEG:%.+]] = int21.constant dense<{{\[}}[6, 4], [3, 1]]> : tensor<2x2xi32>
// CHECK-DAG: [[STRIDE:%.+]] = int21.constant dense<[6, 3, 0]> : tensor<3xi32>
// CHECK-DAG: [[SPLAT:%.+]] = int21.constant dense<4.000000e+00> : tensor<1x2xf32>
// CHECK: [[REV:%.+]] = int21.slice [[X]] {sizes = array<i64: 2, 3>, starts = array<i64: 1, 0>, steps = array<i64: -1, 1>}
// CHECK: return [[X]], [[NEG]], [[STRIDE]], [[SPLAT]], [[REV]], [[EMPTY]] :
func.func @slice(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x2xi32>, tensor<3xi32>,
                                          tensor<1x2xf32>, tensor<2x3xf32>, tensor<0x3xi32>) {
  %0 = int21.slice %x {starts = array<i64: 0, 0>, sizes = array<i64: 2, 3>, steps = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = int21.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %1 = int21.slice %c {starts = array<i64: 1, 2>, sizes = array<i64: 2, 2>, steps = array<i64: -1, -2>} : (tensor<2x3xi32>) -> tensor<2x2xi32>
  %r = int21.constant dense<[0, 1, 2, 3, 4, 5, 6]> : tensor<7xi32>
  %2 = int21.slice %r {starts = array<i64: 6>, sizes = array<i64: 3>, steps = array<i64: -3>} : (tensor<7xi32>) -> tensor<3xi32>
  %s = int21.constant dense<4.0> : tensor<5x5xf32>
  %3 = int21.slice %s {starts = array<i64: 1, 4>, sizes = array<i64: 1, 2>, steps = array<i64: 1, -2>} : (tensor<5x5xf32>) -> tensor<1x2xf32>
  %4 = int21.slice %x {starts = array<i64: 1, 0>, sizes = array<i64: 2, 3>, steps = array<i64: -1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = int21.slice %c {starts = array<i64: 0, 0>, sizes = array<i64: 0, 3>, steps = array<i64: 1, 1>} : (tensor<2x3xi32>) -> tensor<0x3xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xf32>, tensor<2x2xi32>, tensor<3xi32>,
                                  tensor<1x2xf32>, tensor<2x3xf32>, tensor<0x3xi32>
}

//===----------------------------------------------------------------------===//
// Large constants
//===----------------------------------------------------------------------===//

// -----

// Non-splat constants of more than 4096 elements are never expanded, and no
// fold produces more than 4096 distinct elements. A reshape only changes the
// type, so it still folds.
// CHECK-LABEL: func.func @large_constants_not_folded
// CHECK-DAG: [[BIG:%.+]] = int21.constant dense<"0x010203{{[0-9A-F]+}}"> : tensor<2x2050xi8>
// CHECK-DAG: [[FLAT:%.+]] = int21.constant dense<"0x010203{{[0-9A-F]+}}"> : tensor<4100xi8>
// CHECK-DAG: [[ONE:%.+]] = int21.constant dense<1> : tensor<2x2050xi8>
// CHECK-DAG: [[A:%.+]] = int21.constant dense<{{\[}}{{\[}}[1]], {{\[}}[2]]]> : tensor<2x1x1xi32>
// CHECK-DAG: [[B:%.+]] = int21.constant dense<3> : tensor<1x64x65xi32>
// CHECK: [[ADD:%.+]] = int21.add [[BIG]], [[ONE]]
// CHECK: [[T:%.+]] = int21.transpose [[BIG]]
// CHECK: [[CAST:%.+]] = int21.cast [[BIG]]
// CHECK: [[SLICE:%.+]] = int21.slice [[BIG]]
// CHECK: [[BCAST:%.+]] = int21.add [[A]], [[B]]
// CHECK: return [[ADD]], [[T]], [[CAST]], [[SLICE]], [[BCAST]], [[FLAT]] :
func.func @large_constants_not_folded()
    -> (tensor<2x2050xi8>, tensor<2050x2xi8>, tensor<2x2050xi32>, tensor<2x2050xi8>,
        tensor<2x64x65xi32>, tensor<4100xi8>) {
  %0 = int21.constant dense<"0x0102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405060701020304050607010203040506070102030405"> : tensor<2x2050xi8>
  %1 = int21.constant dense<1> : tensor<2x2050xi8>
  %2 = int21.add %0, %1 : (tensor<2x2050xi8>, tensor<2x2050xi8>) -> tensor<2x2050xi8>
  %3 = int21.transpose %0 {perm = array<i64: 1, 0>} : (tensor<2x2050xi8>) -> tensor<2050x2xi8>
  %4 = int21.cast %0 : tensor<2x2050xi8> to tensor<2x2050xi32>
  %5 = int21.slice %0 {starts = array<i64: 1, 0>, sizes = array<i64: 2, 2050>, steps = array<i64: -1, 1>} : (tensor<2x2050xi8>) -> tensor<2x2050xi8>
  %6 = int21.constant dense<[[[1]], [[2]]]> : tensor<2x1x1xi32>
  %7 = int21.constant dense<3> : tensor<1x64x65xi32>
  %8 = int21.add %6, %7 : (tensor<2x1x1xi32>, tensor<1x64x65xi32>) -> tensor<2x64x65xi32>
  %9 = int21.reshape %0 : tensor<2x2050xi8> to tensor<4100xi8>
  return %2, %3, %4, %5, %8, %9
      : tensor<2x2050xi8>, tensor<2050x2xi8>, tensor<2x2050xi32>, tensor<2x2050xi8>,
        tensor<2x64x65xi32>, tensor<4100xi8>
}

//===----------------------------------------------------------------------===//
// int21.fusion_group
//===----------------------------------------------------------------------===//

// -----

// Unused results are dropped (keeping the schedule and the order of the rest),
// then the work only they needed.
// CHECK-LABEL: func.func @fusion_group_drop_unused
// CHECK-SAME: ([[A:%.+]]: tensor<4x8xf32>, [[B:%.+]]: tensor<8x2xf32>)
// CHECK: [[G:%.+]]:2 = int21.fusion_group schedule(<@cpu.matmul, {par_m = 4 : i64}>) {
// CHECK-NEXT: [[M:%.+]] = int21.matmul [[A]], [[B]]
// CHECK-NEXT: [[R:%.+]] = int21.relu [[M]]
// CHECK-NEXT: int21.yield [[M]], [[R]] : tensor<4x2xf32>, tensor<4x2xf32>
// CHECK-NEXT: } : tensor<4x2xf32>, tensor<4x2xf32>
// CHECK-NEXT: return [[G]]#1, [[G]]#0
func.func @fusion_group_drop_unused(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %0:3 = int21.fusion_group schedule(#int21.schedule<@cpu.matmul, {par_m = 4 : i64}>) {
    %1 = int21.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
    %2 = int21.exp %1 : tensor<4x2xf32>
    %3 = int21.relu %1 : tensor<4x2xf32>
    int21.yield %1, %2, %3 : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
  } : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
  return %0#2, %0#0 : tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// CHECK-LABEL: func.func @fusion_group_all_used
// CHECK: [[G:%.+]]:2 = int21.fusion_group {
// CHECK: int21.yield
// CHECK: return [[G]]#0, [[G]]#1
func.func @fusion_group_all_used(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0:2 = int21.fusion_group {
    %1 = int21.exp %a : tensor<4xf32>
    %2 = int21.relu %1 : tensor<4xf32>
    int21.yield %1, %2 : tensor<4xf32>, tensor<4xf32>
  } : tensor<4xf32>, tensor<4xf32>
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A group that only forwards values from above does no work.
// CHECK-LABEL: func.func @fusion_group_empty
// CHECK-SAME: ([[A:%.+]]: tensor<4xf32>, [[B:%.+]]: tensor<4xf32>)
// CHECK-NEXT: return [[B]], [[A]]
func.func @fusion_group_empty(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0:2 = int21.fusion_group {
    int21.yield %b, %a : tensor<4xf32>, tensor<4xf32>
  } : tensor<4xf32>, tensor<4xf32>
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A group none of whose results is used is dead.
// CHECK-LABEL: func.func @fusion_group_dead
// CHECK-NEXT: return
func.func @fusion_group_dead(%a: tensor<4xf32>) {
  %0 = int21.fusion_group {
    %1 = int21.exp %a : tensor<4xf32>
    int21.yield %1 : tensor<4xf32>
  } : tensor<4xf32>
  return
}

// -----

// Gather of small constants folds, with negative indices counting from the
// end: the Shape -> Gather step of PyTorch's shape subgraphs.
// CHECK-LABEL: func.func @gather_fold
// CHECK-DAG: [[S:%.+]] = int21.constant dense<12> : tensor<i64>
// CHECK-DAG: [[M:%.+]] = int21.constant dense<{{\[}}[5, 6], [1, 2]]> : tensor<2x2xi64>
// CHECK-NEXT: return [[S]], [[M]]
func.func @gather_fold() -> (tensor<i64>, tensor<2x2xi64>) {
  %shape = int21.constant dense<[2, 12, 64]> : tensor<3xi64>
  %i = int21.constant dense<1> : tensor<i64>
  %0 = int21.gather %shape, %i {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %table = int21.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
  %j = int21.constant dense<[-1, 0]> : tensor<2xi64>
  %1 = int21.gather %table, %j {axis = 0 : i64} : (tensor<3x2xi64>, tensor<2xi64>) -> tensor<2x2xi64>
  return %0, %1 : tensor<i64>, tensor<2x2xi64>
}

// -----

// Gather along an inner axis, and an out-of-range index that is left for run
// time rather than folded.
// CHECK-LABEL: func.func @gather_inner_axis
// CHECK-DAG: [[C:%.+]] = int21.constant dense<{{\[}}[2, 1], [4, 3]]> : tensor<2x2xi64>
// CHECK-DAG: [[G:%.+]] = int21.gather
// CHECK: return [[C]], [[G]]
func.func @gather_inner_axis() -> (tensor<2x2xi64>, tensor<i64>) {
  %m = int21.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %j = int21.constant dense<[1, 0]> : tensor<2xi32>
  %0 = int21.gather %m, %j {axis = 1 : i64} : (tensor<2x2xi64>, tensor<2xi32>) -> tensor<2x2xi64>
  %v = int21.constant dense<[7, 8]> : tensor<2xi64>
  %k = int21.constant dense<5> : tensor<i64>
  %1 = int21.gather %v, %k {axis = 0 : i64} : (tensor<2xi64>, tensor<i64>) -> tensor<i64>
  return %0, %1 : tensor<2x2xi64>, tensor<i64>
}

// -----

// Comparisons of constants fold to i1 constants, with broadcasting; NaN
// compares false; unsigned integers compare unsigned.
// CHECK-LABEL: func.func @compare_fold
// CHECK-DAG: [[EQ:%.+]] = int21.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK-DAG: [[LE:%.+]] = int21.constant dense<true> : tensor<3xi1>
// CHECK-DAG: [[GT:%.+]] = int21.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-DAG: [[NAN:%.+]] = int21.constant dense<false> : tensor<2xi1>
// CHECK-DAG: [[U:%.+]] = int21.constant dense<true> : tensor<i1>
// CHECK-NOT: int21.equal
// CHECK-NOT: int21.less
// CHECK-NOT: int21.greater
// CHECK: return [[EQ]], [[LE]], [[GT]], [[NAN]], [[U]]
func.func @compare_fold() -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<2xi1>, tensor<i1>) {
  %a = int21.constant dense<[1, -1, 3]> : tensor<3xi64>
  %m1 = int21.constant dense<-1> : tensor<i64>
  %0 = int21.equal %a, %m1 : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %1 = int21.greater_equal %a, %a : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  %2 = int21.greater %a, %m1 : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %3 = int21.less_equal %a, %a : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  %f = int21.constant dense<[0x7FC00000, 1.0]> : tensor<2xf32>
  %4 = int21.less %f, %f : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %u = int21.constant dense<255> : tensor<ui8>
  %one = int21.constant dense<1> : tensor<ui8>
  %5 = int21.greater %u, %one : (tensor<ui8>, tensor<ui8>) -> tensor<i1>
  %6 = int21.greater %a, %a : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  %7 = int21.or %2, %6 : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return %0, %3, %7, %4, %5 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<2xi1>, tensor<i1>
}

// -----

// Logical ops and where over constants fold; a splat condition picks a side.
// CHECK-LABEL: func.func @logical_and_where_fold
// CHECK-SAME: ([[X:%.+]]: tensor<3xi64>, [[Y:%.+]]: tensor<3xi64>)
// CHECK-DAG: [[W:%.+]] = int21.constant dense<[10, 2, 30]> : tensor<3xi64>
// CHECK-DAG: [[L:%.+]] = int21.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK: return [[W]], [[Y]], [[L]]
func.func @logical_and_where_fold(%x: tensor<3xi64>, %y: tensor<3xi64>) -> (tensor<3xi64>, tensor<3xi64>, tensor<3xi1>) {
  %p = int21.constant dense<[true, false, true]> : tensor<3xi1>
  %q = int21.constant dense<[false, true, false]> : tensor<3xi1>
  %a = int21.constant dense<[10, 20, 30]> : tensor<3xi64>
  %b = int21.constant dense<[1, 2, 3]> : tensor<3xi64>
  %0 = int21.where %p, %a, %b : (tensor<3xi1>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %f = int21.constant dense<false> : tensor<i1>
  %1 = int21.where %f, %x, %y : (tensor<i1>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %2 = int21.and %p, %q : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %3 = int21.xor %p, %q : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %4 = int21.not %p : tensor<3xi1>
  %5 = int21.or %2, %4 : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %6 = int21.and %5, %3 : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return %0, %1, %6 : tensor<3xi64>, tensor<3xi64>, tensor<3xi1>
}

// -----

//===----------------------------------------------------------------------===//
// int21.conv: a 1x1 kernel without padding takes unit strides, reading the
// input's strided slice
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @conv_1x1_strided
// CHECK-SAME: ([[X:%.+]]: tensor<1x8x9x10xf32>, [[W:%.+]]: tensor<4x8x1x1xf32>, [[B:%.+]]: tensor<4xf32>)
// CHECK: [[S:%.+]] = int21.slice [[X]] {sizes = array<i64: 1, 8, 5, 4>, starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 2, 3>} : (tensor<1x8x9x10xf32>) -> tensor<1x8x5x4xf32>
// CHECK: int21.conv [[S]], [[W]], [[B]] {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x5x4xf32>, tensor<4x8x1x1xf32>, tensor<4xf32>) -> tensor<1x4x5x4xf32>
func.func @conv_1x1_strided(%x: tensor<1x8x9x10xf32>, %w: tensor<4x8x1x1xf32>, %b: tensor<4xf32>) -> tensor<1x4x5x4xf32> {
  %0 = int21.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 3>} : (tensor<1x8x9x10xf32>, tensor<4x8x1x1xf32>, tensor<4xf32>) -> tensor<1x4x5x4xf32>
  return %0 : tensor<1x4x5x4xf32>
}

// -----

// Grouped, 1-D, no bias: the same.
// CHECK-LABEL: func.func @conv_1x1_strided_grouped_1d
// CHECK: [[S:%.+]] = int21.slice %{{.*}} {sizes = array<i64: 2, 6, 4>, starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 2>}
// CHECK: int21.conv [[S]], %{{.*}} {dilations = array<i64: 1>, group = 3 : i64, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<2x6x4xf32>, tensor<9x2x1xf32>) -> tensor<2x9x4xf32>
func.func @conv_1x1_strided_grouped_1d(%x: tensor<2x6x8xf32>, %w: tensor<9x2x1xf32>) -> tensor<2x9x4xf32> {
  %0 = int21.conv %x, %w {dilations = array<i64: 1>, group = 3 : i64, pads = array<i64: 0, 0>, strides = array<i64: 2>} : (tensor<2x6x8xf32>, tensor<9x2x1xf32>) -> tensor<2x9x4xf32>
  return %0 : tensor<2x9x4xf32>
}

// -----

// Padded, a wider kernel, or unit strides: unchanged.
// CHECK-LABEL: func.func @conv_strided_kept
// CHECK-NOT: int21.slice
// CHECK: strides = array<i64: 2, 2>
// CHECK: strides = array<i64: 2, 2>
// CHECK: strides = array<i64: 1, 1>
func.func @conv_strided_kept(%x: tensor<1x8x9x9xf32>, %w1: tensor<4x8x1x1xf32>, %w3: tensor<4x8x3x3xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x4x4xf32>, tensor<1x4x9x9xf32>) {
  %0 = int21.conv %x, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x9x9xf32>, tensor<4x8x1x1xf32>) -> tensor<1x4x6x6xf32>
  %1 = int21.conv %x, %w3 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x9x9xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x4x4xf32>
  %2 = int21.conv %x, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x9x9xf32>, tensor<4x8x1x1xf32>) -> tensor<1x4x9x9xf32>
  return %0, %1, %2 : tensor<1x4x6x6xf32>, tensor<1x4x4x4xf32>, tensor<1x4x9x9xf32>
}
