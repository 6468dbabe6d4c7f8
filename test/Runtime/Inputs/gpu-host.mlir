// A host-form module (include/int21/Compiler/GPUEngine.h) for the GPU engine
// tests: y = relu(2 * x[4:12] + w), z = x[0:8] reshaped to 2x4.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @axpy(%x: memref<8xf32, strided<[1], offset: 4>>,
                   %w: memref<8xf32>, %y: memref<8xf32>, %s: f32,
                   %n: index) kernel {
      %i = gpu.thread_id x
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %v = memref.load %x[%i] : memref<8xf32, strided<[1], offset: 4>>
        %b = memref.load %w[%i] : memref<8xf32>
        %m = arith.mulf %v, %s : f32
        %r = arith.addf %m, %b : f32
        memref.store %r, %y[%i] : memref<8xf32>
      }
      gpu.return
    }
    gpu.func @relu(%t: memref<2x4xf32>, %n: i32) kernel {
      %i = gpu.block_id x
      %j = gpu.thread_id x
      %zero = arith.constant 0.0 : f32
      %v = memref.load %t[%i, %j] : memref<2x4xf32>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %t[%i, %j] : memref<2x4xf32>
      gpu.return
    }
  }
  func.func @main(%x: memref<16xf32> {onnx.name = "x"},
                  %w: memref<8xf32> {int21.weight = dense<[-20.0, 1.0, -20.0, 3.0, -40.0, 5.0, 6.0, 7.0]> : tensor<8xf32>},
                  %y: memref<8xf32> {onnx.name = "y", int21.output},
                  %z: memref<2x4xf32> {onnx.name = "z", int21.output},
                  %ws: memref<128xi8> {int21.workspace = 128 : i64}) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %n = arith.constant 8 : i32
    %two = arith.constant 2.0 : f32
    %sub = memref.subview %x[4] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1], offset: 4>>
    %tmp = memref.view %ws[%c64][] : memref<128xi8> to memref<8xf32>
    gpu.launch_func @kernels::@axpy blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1)
        args(%sub : memref<8xf32, strided<[1], offset: 4>>, %w : memref<8xf32>,
             %tmp : memref<8xf32>, %two : f32, %c8 : index)
    %tmp2 = memref.expand_shape %tmp [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
    gpu.launch_func @kernels::@relu blocks in (%c2, %c1, %c1) threads in (%c4, %c1, %c1)
        args(%tmp2 : memref<2x4xf32>, %n : i32)
    memref.copy %tmp, %y : memref<8xf32> to memref<8xf32>
    %head = memref.reinterpret_cast %x to offset: [0], sizes: [2, 4], strides: [4, 1] : memref<16xf32> to memref<2x4xf32>
    memref.copy %head, %z : memref<2x4xf32> to memref<2x4xf32>
    return
  }
}
