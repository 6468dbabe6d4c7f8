// RUN: int21-opt %s -split-input-file -int21-inline-fusion-groups | FileCheck %s

// Every int21.fusion_group is replaced by its body, its results by the
// yielded values; the schedule goes with the group.

// CHECK-LABEL: func.func @inline_one_group
// CHECK-SAME: ([[A:%.+]]: tensor<4x8xf32>, [[B:%.+]]: tensor<8x2xf32>)
// CHECK-NOT: int21.fusion_group
// CHECK-NEXT: [[M:%.+]] = int21.matmul [[A]], [[B]]
// CHECK-NEXT: [[R:%.+]] = int21.relu [[M]]
// CHECK-NEXT: [[E:%.+]] = int21.exp [[R]]
// CHECK-NEXT: return [[E]]
func.func @inline_one_group(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %0 = int21.fusion_group schedule(#int21.schedule<@cpu.matmul, {par_m = 4 : i64}>) {
    %1 = int21.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
    %2 = int21.relu %1 : tensor<4x2xf32>
    int21.yield %2 : tensor<4x2xf32>
  } : tensor<4x2xf32>
  %3 = int21.exp %0 : tensor<4x2xf32>
  return %3 : tensor<4x2xf32>
}

// -----

// Results map to the yielded values in order, including values from above.
// CHECK-LABEL: func.func @inline_several_results
// CHECK-SAME: ([[X:%.+]]: tensor<4xf32>)
// CHECK-NEXT: [[E:%.+]] = int21.exp [[X]]
// CHECK-NEXT: [[N:%.+]] = int21.neg [[E]]
// CHECK-NEXT: return [[N]], [[X]], [[E]]
func.func @inline_several_results(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0:3 = int21.fusion_group {
    %1 = int21.exp %x : tensor<4xf32>
    %2 = int21.neg %1 : tensor<4xf32>
    int21.yield %2, %x, %1 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  } : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return %0#0, %0#1, %0#2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Groups one after the other, one feeding the next, and a group with no
// results.
// CHECK-LABEL: func.func @inline_chain
// CHECK-SAME: ([[X:%.+]]: tensor<4xf32>)
// CHECK-NEXT: [[E:%.+]] = int21.exp [[X]]
// CHECK-NEXT: [[T:%.+]] = int21.tanh [[E]]
// CHECK-NEXT: int21.relu [[X]]
// CHECK-NEXT: return [[T]]
func.func @inline_chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = int21.fusion_group {
    %1 = int21.exp %x : tensor<4xf32>
    int21.yield %1 : tensor<4xf32>
  } : tensor<4xf32>
  %2 = int21.fusion_group {
    %3 = int21.tanh %0 : tensor<4xf32>
    int21.yield %3 : tensor<4xf32>
  } : tensor<4xf32>
  int21.fusion_group {
    %4 = int21.relu %x : tensor<4xf32>
  }
  return %2 : tensor<4xf32>
}

// -----

// Nested groups are dissolved too.
// CHECK-LABEL: func.func @inline_nested
// CHECK-SAME: ([[X:%.+]]: tensor<4xf32>)
// CHECK-NEXT: [[E:%.+]] = int21.exp [[X]]
// CHECK-NEXT: [[N:%.+]] = int21.neg [[E]]
// CHECK-NEXT: [[S:%.+]] = int21.sin [[N]]
// CHECK-NEXT: return [[S]]
func.func @inline_nested(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = int21.fusion_group {
    %1 = int21.exp %x : tensor<4xf32>
    %2 = int21.fusion_group {
      %3 = int21.neg %1 : tensor<4xf32>
      int21.yield %3 : tensor<4xf32>
    } : tensor<4xf32>
    %4 = int21.sin %2 : tensor<4xf32>
    int21.yield %4 : tensor<4xf32>
  } : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A function without groups is unchanged.
// CHECK-LABEL: func.func @no_groups
// CHECK-NEXT: int21.relu
// CHECK-NEXT: return
func.func @no_groups(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = int21.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
