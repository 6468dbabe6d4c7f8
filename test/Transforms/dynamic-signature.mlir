// RUN: int21-opt %s -int21-dynamic-signature -split-input-file -verify-diagnostics | FileCheck %s

// The extents of the dynamic arguments come in one array, last: the input's
// row count, then the output's. Each dynamic argument is a pointer viewed at
// its extents; the output, computed into a buffer of its own, is computed in
// place; @int21_shapes computes the output's extent from the input's.

// CHECK-LABEL: func.func @main
// CHECK-SAME:  ([[X:%.+]]: memref<f32>, [[Y:%.+]]: memref<f32>, [[E:%.+]]: memref<2xi64> {int21.extents = 2 : i64})
// CHECK:       [[N0:%.+]] = memref.load [[E]][%c0] : memref<2xi64>
// CHECK:       [[N:%.+]] = arith.index_cast [[N0]] : i64 to index
// CHECK:       [[XV:%.+]] = memref.reinterpret_cast [[X]] to offset: [0], sizes: [[[N]], 4], strides: [4, 1] : memref<f32> to memref<?x4xf32>
// CHECK:       [[M0:%.+]] = memref.load [[E]][%c1] : memref<2xi64>
// CHECK:       [[M:%.+]] = arith.index_cast [[M0]] : i64 to index
// CHECK:       [[YV:%.+]] = memref.reinterpret_cast [[Y]] to offset: [0], sizes: [[[M]], 4], strides: [4, 1] : memref<f32> to memref<?x4xf32>
// CHECK-NOT:   memref.alloc
// CHECK-NOT:   memref.copy
// CHECK:       linalg.generic {{.*}} ins([[XV]] : memref<?x4xf32>) outs([[YV]] : memref<?x4xf32>)
// CHECK-LABEL: func.func @int21_shapes
// CHECK-SAME:  ([[A:%.+]]: memref<2xi64>, %{{.+}}: memref<f32>, %{{.+}}: memref<f32>) -> i32
// CHECK:       [[IN:%.+]] = memref.load [[A]][%{{.+}}] : memref<2xi64>
// CHECK:       [[INI:%.+]] = arith.index_cast [[IN]] : i64 to index
// CHECK:       [[OUT:%.+]] = arith.index_cast [[INI]] : index to i64
// CHECK:       memref.store [[OUT]], [[A]][%{{.+}}] : memref<2xi64>
// CHECK:       return %{{.+}} : i32
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: memref<?x4xf32>, %y: memref<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x4xf32>
  %buf = memref.alloc(%n) : memref<?x4xf32>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x4xf32>) outs(%buf : memref<?x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  }
  memref.copy %buf, %y : memref<?x4xf32> to memref<?x4xf32>
  return
}

// -----

// An output whose extent is read from an input of static shape (a shape
// given as data): @int21_shapes reads it; the module says which argument.
// CHECK: module attributes {int21.shape_value_arguments = [0]}
// CHECK-LABEL: func.func @main
// CHECK-LABEL: func.func @int21_shapes
// CHECK-SAME:  ([[A:%.+]]: memref<1xi64>, [[S:%.+]]: memref<2xi64>, %{{.+}}: memref<f32>) -> i32
// CHECK:       [[V:%.+]] = memref.load [[S]][%{{.+}}] : memref<2xi64>
// CHECK:       [[N:%.+]] = arith.index_cast [[V]] : i64 to index
// CHECK:       [[OUT:%.+]] = arith.index_cast [[N]] : index to i64
// CHECK:       memref.store [[OUT]], [[A]][%{{.+}}] : memref<1xi64>
func.func @main(%s: memref<2xi64>, %y: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  %v = memref.load %s[%c1] : memref<2xi64>
  %n = arith.index_cast %v : i64 to index
  %buf = memref.alloc(%n) : memref<?xf32>
  memref.copy %buf, %y : memref<?xf32> to memref<?xf32>
  return
}

// -----

// An output whose extent no arithmetic on the inputs' extents and values
// gives before the run (read from an input of dynamic shape here; a value a
// loop grows in models) is sized by the run: @int21_shapes answers -1 for
// its extent; @main stores the extent in its slot, hands the elements to
// @int21_output and stores the address it returns where the output's
// pointer was (an i64); the module lists the argument.
// CHECK: module attributes {int21.run_sized_arguments = [1]}
// CHECK-LABEL: func.func @main
// CHECK-SAME:  (%{{.+}}: memref<i64>, [[Y:%.+]]: memref<i64>, [[E:%.+]]: memref<2xi64> {int21.extents = 2 : i64})
// CHECK:       [[BUF:%.+]] = memref.alloc(%{{.+}}) : memref<?xf32>
// CHECK-NOT:   memref.copy
// CHECK:       [[N:%.+]] = memref.dim [[BUF]], %{{.+}} : memref<?xf32>
// CHECK:       [[N64:%.+]] = arith.index_cast [[N]] : index to i64
// CHECK:       memref.store [[N64]], [[E]][%{{.+}}] : memref<2xi64>
// CHECK:       [[P:%.+]] = memref.extract_aligned_pointer_as_index [[BUF]]
// CHECK:       [[P64:%.+]] = arith.index_cast [[P]] : index to i64
// CHECK:       [[ADDRESS:%.+]] = call @int21_output([[P64]], %{{.+}}) : (i64, i64) -> i64
// CHECK:       memref.store [[ADDRESS]], [[Y]][] : memref<i64>
// CHECK-LABEL: func.func @int21_shapes
// CHECK:       [[UNKNOWN:%.+]] = arith.constant -1 : i64
// CHECK:       memref.store [[UNKNOWN]]
// CHECK:       func.func private @int21_output(i64, i64) -> i64
func.func @main(%x: memref<?xi64>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<?xi64>
  %n = arith.index_cast %v : i64 to index
  %buf = memref.alloc(%n) : memref<?xf32>
  memref.copy %buf, %y : memref<?xf32> to memref<?xf32>
  return
}

// -----

// Extent checks move from @main into @int21_shapes, which returns the number
// of the first that fails; their messages go on the module.
// CHECK: module attributes {int21.extent_checks = ["rows must agree"]}
// CHECK-LABEL: func.func @main
// CHECK-NOT:   cf.assert
// CHECK-LABEL: func.func @int21_shapes
// CHECK:       [[A:%.+]] = arith.index_cast
// CHECK:       [[B:%.+]] = arith.index_cast
// CHECK:       [[SAME:%.+]] = arith.cmpi eq, [[A]], [[B]] : index
// CHECK:       [[BAD:%.+]] = arith.xori [[SAME]], %true
// CHECK:       [[FAILS:%.+]] = arith.andi %{{.+}}, [[BAD]]
// CHECK:       [[STATUS:%.+]] = arith.select [[FAILS]], %c1_i32, %c0_i32 : i32
// CHECK:       return [[STATUS]] : i32
func.func @main(%x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %m = memref.dim %y, %c0 : memref<?xf32>
  %same = arith.cmpi eq, %n, %m : index
  cf.assert %same, "rows must agree"
  return
}

// -----

// An output whose extent the run computes from data (int21.bounded_extent):
// @int21_shapes answers the bound, which the output is allocated at; @main
// views the output at the count where it writes it and stores the count in
// the output's slot; the module lists the slot.
// CHECK: module attributes {int21.data_extents = [0]}
// CHECK-LABEL: func.func @main
// CHECK-SAME:  ([[X:%.+]]: memref<8xf32>, [[Y:%.+]]: memref<i64>, [[E:%.+]]: memref<1xi64> {int21.extents = 1 : i64})
// CHECK:       [[COUNT:%.+]] = scf.for
// CHECK-NOT:   int21.bounded_extent
// CHECK:       [[BUF:%.+]] = memref.alloc([[COUNT]]) : memref<?xi64>
// CHECK:       [[C:%.+]] = arith.index_cast [[COUNT]] : index to i64
// CHECK:       memref.store [[C]], [[E]][%{{.+}}] : memref<1xi64>
// CHECK:       [[YV:%.+]] = memref.reinterpret_cast [[Y]] to offset: [0], sizes: [[[COUNT]]], strides: [1] : memref<i64> to memref<?xi64>
// CHECK:       memref.copy [[BUF]], [[YV]]
// CHECK-LABEL: func.func @int21_shapes
// CHECK-SAME:  ([[A:%.+]]: memref<1xi64>, %{{.+}}: memref<8xf32>, %{{.+}}: memref<i64>) -> i32
// CHECK:       [[B:%.+]] = arith.index_cast %c8{{.*}} : index to i64
// CHECK:       memref.store [[B]], [[A]][%{{.+}}] : memref<1xi64>
func.func @main(%x: memref<8xf32>, %y: memref<?xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %count = scf.for %i = %c0 to %c8 step %c1 iter_args(%n = %c0) -> (index) {
    %v = memref.load %x[%i] : memref<8xf32>
    %nz = arith.cmpf une, %v, %zero : f32
    %add = arith.select %nz, %c1, %c0 : index
    %next = arith.addi %n, %add : index
    scf.yield %next : index
  }
  %e = int21.bounded_extent %count, %c8
  %buf = memref.alloc(%e) : memref<?xi64>
  memref.copy %buf, %y : memref<?xi64> to memref<?xi64>
  return
}

// -----

// An extent computed from data in a check of the extents is refused: the
// engine checks extents before the run only.
func.func @main(%x: memref<8xf32>, %y: memref<?xi64>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %v = memref.load %x[%c0] : memref<8xf32>
  %i = arith.fptosi %v : f32 to i64
  %n = arith.index_cast %i : i64 to index
  %e = int21.bounded_extent %n, %c8
  %ok = arith.cmpi eq, %e, %c4 : index
  // expected-error @+1 {{the check 'four' depends on an extent computed from the values of a tensor: int21 checks extents before the run only}}
  cf.assert %ok, "four"
  %buf = memref.alloc(%e) : memref<?xi64>
  memref.copy %buf, %y : memref<?xi64> to memref<?xi64>
  return
}
