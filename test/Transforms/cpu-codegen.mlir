// RUN: int21-opt %s -split-input-file --int21-signless-signature | FileCheck %s --check-prefix=SIGNLESS
// RUN: int21-opt %s -split-input-file --int21-cpu-codegen | FileCheck %s

// The whole CPU code generation: @main takes bare pointers (input, weight,
// output, workspace) and becomes internal; int21_entry unpacks an array of
// pointers.
// CHECK-LABEL: llvm.func internal @main
// CHECK-SAME: (%arg0: !llvm.ptr, %arg1: !llvm.ptr {int21.weight = dense<
// CHECK-SAME: %arg2: !llvm.ptr, %arg3: !llvm.ptr {int21.workspace = {{[0-9]+}} : i64})
// CHECK-NOT: memrefCopy
// CHECK-LABEL: llvm.func @int21_entry(%{{.*}}: !llvm.ptr)
// CHECK-COUNT-4: llvm.load {{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call @main
func.func @main(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 17.0]]> : tensor<4x16xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %sum = linalg.add ins(%x, %w : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %s = linalg.softmax dimension(1) ins(%sum : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}

// -----

// Unsigned tensors at the boundary: the signature becomes signless and the
// casts into and out of the body disappear.
// SIGNLESS: func.func @main(%{{.*}}: tensor<4xi8>)
// SIGNLESS-SAME: -> tensor<4xi8>
// SIGNLESS-NOT: tensor.bitcast
// SIGNLESS: return
// CHECK-LABEL: llvm.func internal @main
func.func @main(%a: tensor<4xui8>) -> tensor<4xui8> {
  %0 = tensor.bitcast %a : tensor<4xui8> to tensor<4xi8>
  %e = tensor.empty() : tensor<4xi8>
  %1 = linalg.add ins(%0, %0 : tensor<4xi8>, tensor<4xi8>) outs(%e : tensor<4xi8>) -> tensor<4xi8>
  %2 = tensor.bitcast %1 : tensor<4xi8> to tensor<4xui8>
  return %2 : tensor<4xui8>
}

// -----

// The same through a fusion group that yields the unsigned cast.
// SIGNLESS: func.func @main(%{{.*}}: tensor<4xi8>) -> tensor<4xi8>
// SIGNLESS: %[[G:.*]] = int21.fusion_group
// SIGNLESS: int21.yield %{{.*}} : tensor<4xi8>
// SIGNLESS-NEXT: } : tensor<4xi8>
// SIGNLESS-NOT: tensor.bitcast
// SIGNLESS: return %[[G]] : tensor<4xi8>
// CHECK-LABEL: llvm.func internal @main
func.func @main(%a: tensor<4xui8>) -> tensor<4xui8> {
  %0 = tensor.bitcast %a : tensor<4xui8> to tensor<4xi8>
  %g = int21.fusion_group {
    %e = tensor.empty() : tensor<4xi8>
    %1 = linalg.add ins(%0, %0 : tensor<4xi8>, tensor<4xi8>) outs(%e : tensor<4xi8>) -> tensor<4xi8>
    %2 = tensor.bitcast %1 : tensor<4xi8> to tensor<4xui8>
    int21.yield %2 : tensor<4xui8>
  } : tensor<4xui8>
  return %g : tensor<4xui8>
}

// -----

// A group's unsigned result cast back by the very next op, which another
// group reads: the cast back disappears (the walk must not step onto it).
// SIGNLESS: func.func @main(%{{.*}}: tensor<4xi8>) -> tensor<4xi8>
// SIGNLESS: %[[G:.*]] = int21.fusion_group
// SIGNLESS: } : tensor<4xi8>
// SIGNLESS-NOT: tensor.bitcast
// SIGNLESS: int21.fusion_group
// SIGNLESS: linalg.add ins(%[[G]], %[[G]] :
// CHECK-LABEL: llvm.func internal @main
func.func @main(%a: tensor<4xi8>) -> tensor<4xi8> {
  %g = int21.fusion_group {
    %e = tensor.empty() : tensor<4xi8>
    %1 = linalg.add ins(%a, %a : tensor<4xi8>, tensor<4xi8>) outs(%e : tensor<4xi8>) -> tensor<4xi8>
    %2 = tensor.bitcast %1 : tensor<4xi8> to tensor<4xui8>
    int21.yield %2 : tensor<4xui8>
  } : tensor<4xui8>
  %back = tensor.bitcast %g : tensor<4xui8> to tensor<4xi8>
  %h = int21.fusion_group {
    %e = tensor.empty() : tensor<4xi8>
    %3 = linalg.add ins(%back, %back : tensor<4xi8>, tensor<4xi8>) outs(%e : tensor<4xi8>) -> tensor<4xi8>
    int21.yield %3 : tensor<4xi8>
  } : tensor<4xi8>
  return %h : tensor<4xi8>
}
