// GPU schedules for matmul-like fusion groups (linalg.matmul,
// linalg.batch_matmul with their fill and elementwise epilogue): the root is
// tiled into blocks of blk_m x blk_n outputs with the group fused into each
// block; the block's contraction is tiled over K (blk_k), its A and B tiles
// promoted to shared memory, and tiled into thr_y x thr_x threads; the fill
// and the epilogue are tiled over the same threads. The accumulator tile is
// the block's own (int21-gpu-schedule gives the fill a destination of its
// own), in shared memory once mapped.
// Each thread's outputs are a register tile of (blk_m / thr_y) x
// (blk_n / thr_x) accumulators, updated `unroll` K steps at a time as one
// vectorized contraction (FMAs, fully unrolled) and kept in registers across
// the block's K tile. The shared-memory copies of A and B are spread over
// the threads in vectors of `vec` elements (global loads ld.global.v4.f32 or
// .v2 where LLVM proves them aligned: the innermost extents and tile offsets
// multiples of vec).
// Knobs: blk_m, blk_n, blk_k block and K tiles; thr_y, thr_x thread counts;
// promote (0/1) shared-memory copies of A and B; vec (1, 2, 4) elements per
// load of those copies; unroll (1, 2, 4) K steps per register-tile update
// (a divisor of blk_k). A register tile without a static shape (threads not
// dividing the block tile) stays scalar loops.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @gpu.matmul(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %blk_m = transform.tune.knob<"blk_m"> options = [16, 32, 64, 128] -> !transform.param<i64>
    %blk_n = transform.tune.knob<"blk_n"> options = [16, 32, 64, 128] -> !transform.param<i64>
    %blk_k = transform.tune.knob<"blk_k"> options = [8, 16, 32, 64] -> !transform.param<i64>
    %thr_y = transform.tune.knob<"thr_y"> options = [4, 8, 16, 32] -> !transform.param<i64>
    %thr_x = transform.tune.knob<"thr_x"> options = [8, 16, 32] -> !transform.param<i64>
    %vec = transform.tune.knob<"vec"> options = [1, 2, 4] -> !transform.param<i64>
    %unroll = transform.tune.knob<"unroll"> options = [1, 2, 4] -> !transform.param<i64>

    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [%blk_m, %blk_n] (mapping = [#gpu.block<y>, #gpu.block<x>])
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)

    %mm = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
    %mm_k, %loop_k = transform.structured.tile_using_for %mm tile_sizes [0, 0, %blk_k]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    transform.include @gpu.promote_operands failures(propagate) (%mm_k, %vec, %thr_y, %thr_x)
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> ()
    %mm_t, %threads = transform.structured.tile_using_forall %mm_k num_threads [%thr_y, %thr_x] (mapping = [#gpu.thread<y>, #gpu.thread<x>])
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %mm_r, %loop_r = transform.structured.tile_using_for %mm_t tile_sizes [0, 0, %unroll]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)

    %ew = transform.structured.match attributes{int21.ew} in %forall_1 : (!transform.any_op) -> !transform.any_op
    transform.foreach %ew : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %op_t, %op_threads = transform.structured.tile_using_forall %op num_threads [%thr_y, %thr_x] (mapping = [#gpu.thread<y>, #gpu.thread<x>])
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    }
    transform.apply_patterns to %group {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.include @gpu.vectorize_static failures(propagate) (%mm_r) : (!transform.any_op) -> ()
    transform.include @gpu.lower_vectors failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.yield
  }

  // The same with a leading batch dimension: one batch per block. Its
  // copies and register tiles stay scalar for now (vec and unroll only
  // shape the loops): the kernel lowering does not yet take all of their
  // vector transfers.
  transform.named_sequence @gpu.batch_matmul(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %blk_m = transform.tune.knob<"blk_m"> options = [16, 32, 64, 128] -> !transform.param<i64>
    %blk_n = transform.tune.knob<"blk_n"> options = [16, 32, 64, 128] -> !transform.param<i64>
    %blk_k = transform.tune.knob<"blk_k"> options = [8, 16, 32, 64] -> !transform.param<i64>
    %thr_y = transform.tune.knob<"thr_y"> options = [4, 8, 16, 32] -> !transform.param<i64>
    %thr_x = transform.tune.knob<"thr_x"> options = [8, 16, 32] -> !transform.param<i64>
    %vec = transform.tune.knob<"vec"> options = [1, 2, 4] -> !transform.param<i64>
    %unroll = transform.tune.knob<"unroll"> options = [1, 2, 4] -> !transform.param<i64>

    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [1, %blk_m, %blk_n] (mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>])
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)

    %mm = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
    %mm_k, %loop_k = transform.structured.tile_using_for %mm tile_sizes [0, 0, 0, %blk_k]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    transform.include @gpu.promote_operands_batch failures(propagate) (%mm_k, %vec, %thr_y, %thr_x)
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> ()
    %mm_t, %threads = transform.structured.tile_using_forall %mm_k num_threads [0, %thr_y, %thr_x] (mapping = [#gpu.thread<y>, #gpu.thread<x>])
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %mm_r, %loop_r = transform.structured.tile_using_for %mm_t tile_sizes [0, 0, 0, %unroll]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)

    %ew = transform.structured.match attributes{int21.ew} in %forall_1 : (!transform.any_op) -> !transform.any_op
    transform.foreach %ew : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %op_t, %op_threads = transform.structured.tile_using_forall %op num_threads [0, %thr_y, %thr_x] (mapping = [#gpu.thread<y>, #gpu.thread<x>])
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    }
    transform.apply_patterns to %group {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}
