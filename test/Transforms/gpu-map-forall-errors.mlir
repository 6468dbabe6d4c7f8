// RUN: int21-opt %s --int21-gpu-map-forall -split-input-file -verify-diagnostics

// Compute whose results the host needs cannot become a kernel.
func.func @host_result(%m: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{cannot map 'scf.for' to the GPU: its results stay on the host}}
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> f32 {
    %v = memref.load %m[%i] : memref<4xf32>
    %s = arith.addf %acc, %v : f32
    scf.yield %s : f32
  }
  return %r : f32
}

// -----

// A host allocation of a dynamic size cannot go to the workspace.
func.func @host_alloc(%m: memref<?xf32>, %n: index) {
  // expected-error @+1 {{cannot map 'memref.alloc' to the GPU: it would stay on the host}}
  %a = memref.alloc(%n) : memref<?xf32>
  memref.copy %m, %a : memref<?xf32> to memref<?xf32>
  return
}
