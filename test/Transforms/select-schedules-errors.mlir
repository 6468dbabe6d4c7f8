// RUN: int21-opt %s -split-input-file -int21-select-schedules -verify-diagnostics -o /dev/null
// RUN: not int21-opt %s -int21-select-schedules="knobs=cpu.matmul.reg_nn=16" 2>&1 | FileCheck %s --check-prefix=KNOB
// RUN: not int21-opt %s -int21-cpu-schedule="knobs=cpu.matmul.reg_nn=16 strict=true" 2>&1 | FileCheck %s --check-prefix=KNOB
// RUN: not int21-opt %s -int21-select-schedules="knobs=cpu.nosuch.reg_n=16" 2>&1 | FileCheck %s --check-prefix=TEMPLATE
// RUN: not int21-opt %s -int21-select-schedules="knobs=cpu.matmul.reg_n=abc" 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not int21-opt %s -int21-select-schedules="knobs=gpu.matmul.blk_k=16" 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not int21-opt %s -split-input-file -int21-select-schedules="knobs=cpu.matmul.reg_n=17" 2>&1 | FileCheck %s --check-prefix=DOMAIN
// RUN: not int21-opt %s -int21-select-schedules="target=sm_70" 2>&1 | FileCheck %s --check-prefix=CHIP

// Every schedule is checked by int21-select-schedules: its template and
// knobs against the templates' own tune.knob ops (the attribute's verifier
// does the same when it is parsed), each value against its domain for the
// group's work, and the template's rules between knobs. The knobs option
// goes through the same checks, for every group of its template.
// KNOB: error: int21-{{select-schedules|cpu-schedule}}: knobs: template @cpu.matmul has no knob 'reg_nn' (its knobs: par_m, par_n, cache_k, reg_m, reg_n, reg_k, epilogue_regs, pack_b, cache_n)
// TEMPLATE: error: int21-select-schedules: knobs: unknown schedule template @cpu.nosuch
// TYPE: error: int21-select-schedules: knobs: expected TEMPLATE.NAME=INTEGER, got 'cpu.matmul.reg_n=abc'
// TARGET: error: int21-select-schedules: knobs: template @gpu.matmul is a GPU template, not one of the CPU (cpu.matmul, cpu.matmul_transposed, cpu.batch_matmul,
// DOMAIN: error: schedule @cpu.matmul: knob 'reg_n' of template @cpu.matmul = 17 is outside its domain for this work [8, 16, 24, 32, 48, 64]
// CHIP: error: int21-select-schedules: unknown target 'sm_70' (expected cpu, sm_80 or sm_90)

func.func @outside_domain(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>) -> tensor<64x256xf32> {
  // expected-error @+1 {{schedule @cpu.matmul: knob 'reg_n' of template @cpu.matmul = 17 is outside its domain for this work [8, 16, 24, 32, 48, 64]}}
  %0 = int21.fusion_group schedule(#int21.schedule<@cpu.matmul, {reg_n = 17 : i64}>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
    %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
    int21.yield %m : tensor<64x256xf32>
  } : tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}

// -----

func.func @breaks_a_rule(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>) -> tensor<64x256xf32> {
  // expected-error @+1 {{schedule @cpu.matmul: template @cpu.matmul: register tile rows (reg_m) exceed the thread tile (par_m)}}
  %0 = int21.fusion_group schedule(#int21.schedule<@cpu.matmul, {par_m = 4 : i64, reg_m = 8 : i64}>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
    %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
    int21.yield %m : tensor<64x256xf32>
  } : tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}

// -----

// The register limits are the module's vector registers' (AVX2: 16 of 8
// floats): a tile of 8 x 32 accumulators, a point on AVX-512, is none here.
module attributes {int21.vector_registers = array<i64: 256, 16>} {
func.func @too_many_accumulators(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>) -> tensor<64x256xf32> {
  // expected-error @+1 {{schedule @cpu.matmul: template @cpu.matmul: the register tile (reg_m x reg_n) needs more accumulators than there are vector registers}}
  %0 = int21.fusion_group schedule(#int21.schedule<@cpu.matmul, {reg_m = 8 : i64, reg_n = 32 : i64}>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
    %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
    int21.yield %m : tensor<64x256xf32>
  } : tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}
}

// -----

// A malformed model is an error naming the attribute, not a silent default.
// expected-error @+1 {{'int21.vector_registers' must be array<i64: BITS, COUNT> with BITS 128, 256 or 512 and COUNT 8 to 64, got array<i64: 384, 16>}}
module attributes {int21.vector_registers = array<i64: 384, 16>} {
func.func @bad_model(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  return %a : tensor<8x8xf32>
}
}
