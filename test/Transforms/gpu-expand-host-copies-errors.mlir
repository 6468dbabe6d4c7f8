// RUN: int21-opt %s --int21-gpu-expand-host-copies=block-size=2048 -verify-diagnostics

// A copy kernel's block cannot have more threads than CUDA allows.

// expected-error @+1 {{int21-gpu-expand-host-copies: block-size must be between 1 and 1024, got 2048}}
func.func @too_many_threads(%a: memref<4x8xf32>, %b: memref<4x4xf32>) {
  %s = memref.subview %a[0, 0] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  memref.copy %s, %b : memref<4x4xf32, strided<[8, 1]>> to memref<4x4xf32>
  return
}
