// Shared steps of the GPU schedule templates: tile a group's root into
// blocks (scf.forall mapped to #gpu.block) with the rest of the group fused
// into each block, then the block's root into threads (#gpu.thread) with the
// block's ops fused into each thread, so that a thread computes its
// elements from start to end and its temporaries stay private. Threads are
// given as counts (`num_threads`): the thread loops have static trip counts
// for any block tile, including partial ones. One sequence per number of
// tiled dimensions (the mapping attributes are static).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @gpu.tile_fuse_1d(%group: !transform.any_op {transform.readonly},
      %b0: !transform.param<i64> {transform.readonly}, %t0: !transform.param<i64> {transform.readonly}) {
    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %root tile_sizes [%b0] (mapping = [#gpu.block<x>])
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %root_b = transform.structured.match attributes{int21.root} in %forall_1 : (!transform.any_op) -> !transform.any_op
    %producers_b = transform.structured.match attributes{int21.fuse} in %forall_1 : (!transform.any_op) -> !transform.any_op
    %tiled_t, %threads = transform.structured.tile_using_forall %root_b num_threads [%t0] (mapping = [#gpu.thread<x>])
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused_t, %threads_1 = transform.structured.fuse_into_containing_op %producers_b into %threads
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }

  transform.named_sequence @gpu.tile_fuse_2d(%group: !transform.any_op {transform.readonly},
      %b0: !transform.param<i64> {transform.readonly}, %b1: !transform.param<i64> {transform.readonly},
      %t0: !transform.param<i64> {transform.readonly}, %t1: !transform.param<i64> {transform.readonly}) {
    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %root tile_sizes [%b0, %b1] (mapping = [#gpu.block<y>, #gpu.block<x>])
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %root_b = transform.structured.match attributes{int21.root} in %forall_1 : (!transform.any_op) -> !transform.any_op
    %producers_b = transform.structured.match attributes{int21.fuse} in %forall_1 : (!transform.any_op) -> !transform.any_op
    %tiled_t, %threads = transform.structured.tile_using_forall %root_b num_threads [%t0, %t1] (mapping = [#gpu.thread<y>, #gpu.thread<x>])
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused_t, %threads_1 = transform.structured.fuse_into_containing_op %producers_b into %threads
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }

  transform.named_sequence @gpu.tile_fuse_3d(%group: !transform.any_op {transform.readonly},
      %b0: !transform.param<i64> {transform.readonly}, %b1: !transform.param<i64> {transform.readonly},
      %b2: !transform.param<i64> {transform.readonly},
      %t0: !transform.param<i64> {transform.readonly}, %t1: !transform.param<i64> {transform.readonly},
      %t2: !transform.param<i64> {transform.readonly}) {
    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %root tile_sizes [%b0, %b1, %b2] (mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>])
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %root_b = transform.structured.match attributes{int21.root} in %forall_1 : (!transform.any_op) -> !transform.any_op
    %producers_b = transform.structured.match attributes{int21.fuse} in %forall_1 : (!transform.any_op) -> !transform.any_op
    %tiled_t, %threads = transform.structured.tile_using_forall %root_b num_threads [%t0, %t1, %t2] (mapping = [#gpu.thread<z>, #gpu.thread<y>, #gpu.thread<x>])
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused_t, %threads_1 = transform.structured.fuse_into_containing_op %producers_b into %threads
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }

  // Four leading parallel dimensions (NCHW): the first (the batch) stays
  // whole in every block, the other three are tiled.
  transform.named_sequence @gpu.tile_fuse_4d(%group: !transform.any_op {transform.readonly},
      %b1: !transform.param<i64> {transform.readonly}, %b2: !transform.param<i64> {transform.readonly},
      %b3: !transform.param<i64> {transform.readonly},
      %t1: !transform.param<i64> {transform.readonly}, %t2: !transform.param<i64> {transform.readonly},
      %t3: !transform.param<i64> {transform.readonly}) {
    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %root tile_sizes [0, %b1, %b2, %b3] (mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>])
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %root_b = transform.structured.match attributes{int21.root} in %forall_1 : (!transform.any_op) -> !transform.any_op
    %producers_b = transform.structured.match attributes{int21.fuse} in %forall_1 : (!transform.any_op) -> !transform.any_op
    %tiled_t, %threads = transform.structured.tile_using_forall %root_b num_threads [0, %t1, %t2, %t3] (mapping = [#gpu.thread<z>, #gpu.thread<y>, #gpu.thread<x>])
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused_t, %threads_1 = transform.structured.fuse_into_containing_op %producers_b into %threads
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }

  // Operands A and B of a contraction's K tile copied into shared memory
  // (promote = 1) or read from global memory (promote = 0). Each copy is a
  // linalg.copy spread over the block's threads (see @gpu.copy_tile_2d).
  transform.named_sequence @gpu.promote_operands(%mm: !transform.any_op {transform.readonly},
      %vec: !transform.param<i64> {transform.readonly},
      %thr_y: !transform.param<i64> {transform.readonly}, %thr_x: !transform.param<i64> {transform.readonly}) {
    %promote = transform.tune.knob<"promote"> = 1 from options = [0, 1] -> !transform.param<i64>
    transform.tune.alternatives<"promote"> selected_region = %promote : !transform.param<i64> {
      transform.yield
    }, {
      %a = transform.get_operand %mm[0] : (!transform.any_op) -> !transform.any_value
      %ca = transform.int21.promote_copy to #gpu.address_space<workgroup> %a : (!transform.any_value) -> !transform.any_op
      transform.include @gpu.copy_tile_2d failures(propagate) (%ca, %vec, %thr_y, %thr_x)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> ()
      %b = transform.get_operand %mm[1] : (!transform.any_op) -> !transform.any_value
      %cb = transform.int21.promote_copy to #gpu.address_space<workgroup> %b : (!transform.any_value) -> !transform.any_op
      transform.include @gpu.copy_tile_2d failures(propagate) (%cb, %vec, %thr_y, %thr_x)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> ()
      transform.yield
    }
    transform.yield
  }

  // The same for a batched contraction (tiles of one batch: [1, rows, cols]).
  transform.named_sequence @gpu.promote_operands_batch(%mm: !transform.any_op {transform.readonly},
      %vec: !transform.param<i64> {transform.readonly},
      %thr_y: !transform.param<i64> {transform.readonly}, %thr_x: !transform.param<i64> {transform.readonly}) {
    %promote = transform.tune.knob<"promote"> = 1 from options = [0, 1] -> !transform.param<i64>
    transform.tune.alternatives<"promote"> selected_region = %promote : !transform.param<i64> {
      transform.yield
    }, {
      %a = transform.get_operand %mm[0] : (!transform.any_op) -> !transform.any_value
      %ca = transform.int21.promote_copy to #gpu.address_space<workgroup> %a : (!transform.any_value) -> !transform.any_op
      transform.include @gpu.copy_tile_3d failures(propagate) (%ca, %vec, %thr_y, %thr_x)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> ()
      %b = transform.get_operand %mm[1] : (!transform.any_op) -> !transform.any_value
      %cb = transform.int21.promote_copy to #gpu.address_space<workgroup> %b : (!transform.any_value) -> !transform.any_op
      transform.include @gpu.copy_tile_3d failures(propagate) (%cb, %vec, %thr_y, %thr_x)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> ()
      transform.yield
    }
    transform.yield
  }

  // A tile copy (global to shared memory) spread over the block's threads in
  // vectors of up to `vec` contiguous elements (int21.gpu.copy_threads picks
  // the width and the thread counts), neighbouring threads on neighbouring
  // vectors, a thread's vectors a step of columns apart. Whether a vector becomes one wide load is decided by LLVM, from
  // the alignment it can prove (kernel arguments are 16-byte aligned, see
  // int21-gpu-align-arguments): a misaligned vector is split, never wrong.
  transform.named_sequence @gpu.copy_tile_2d(%copy: !transform.any_op {transform.consumed},
      %vec: !transform.param<i64> {transform.readonly},
      %thr_y: !transform.param<i64> {transform.readonly}, %thr_x: !transform.param<i64> {transform.readonly}) {
    %ny, %nx, %w, %step = transform.int21.gpu.copy_threads %copy vector %vec threads %thr_y, %thr_x
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
      -> (!transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
    %copy_s, %steps = transform.structured.tile_using_for %copy tile_sizes [0, %step]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %copy_t, %threads = transform.structured.tile_using_forall %copy_s num_threads [%ny, %nx] (mapping = [#gpu.thread<y>, #gpu.thread<x>])
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %copy_v, %rows, %cols = transform.structured.tile_using_for %copy_t tile_sizes [1, %w]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.include @gpu.vectorize_static failures(propagate) (%copy_v) : (!transform.any_op) -> ()
    transform.yield
  }

  transform.named_sequence @gpu.copy_tile_3d(%copy: !transform.any_op {transform.consumed},
      %vec: !transform.param<i64> {transform.readonly},
      %thr_y: !transform.param<i64> {transform.readonly}, %thr_x: !transform.param<i64> {transform.readonly}) {
    %ny, %nx, %w, %step = transform.int21.gpu.copy_threads %copy vector %vec threads %thr_y, %thr_x
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
      -> (!transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
    %copy_s, %steps = transform.structured.tile_using_for %copy tile_sizes [0, 0, %step]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %copy_t, %threads = transform.structured.tile_using_forall %copy_s num_threads [0, %ny, %nx] (mapping = [#gpu.thread<y>, #gpu.thread<x>])
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %copy_v, %batch, %rows, %cols = transform.structured.tile_using_for %copy_t tile_sizes [1, 1, %w]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    // Not vectorized yet: the kernel lowering does not take every batched
    // transfer yet (see the batch_matmul template).
    transform.yield
  }

  // Vectorizes each op of %ops whose tile has a static shape; the others
  // stay scalar (lowered to loops in the kernel).
  transform.named_sequence @gpu.vectorize_static(%ops: !transform.any_op {transform.consumed}) {
    transform.foreach %ops : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.sequence %op : !transform.any_op failures(suppress) {
      ^bb1(%o: !transform.any_op):
        transform.structured.vectorize %o : !transform.any_op
      }
    }
    transform.yield
  }

  // Vector cleanup after vectorizing a group: the accumulator of each
  // thread's register tile hoisted out of its K loop (it then lives in
  // registers across the loop instead of going to shared memory and back
  // every step), contractions lowered to FMAs, transfers to loads and stores
  // of 1-D vectors.
  transform.named_sequence @gpu.lower_vectors(%scope: !transform.any_op {transform.readonly}) {
    transform.apply_patterns to %scope {
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %scope : !transform.any_op
    // Twice: first the tensor slice of the accumulator, then the vector
    // transfers on it (constants the patterns leave in the loops moved out
    // first, or the transfers do not count as loop invariant).
    %loops = transform.structured.match ops{["scf.for"]} in %scope : (!transform.any_op) -> !transform.any_op
    transform.foreach %loops : !transform.any_op {
    ^bb0(%loop: !transform.any_op):
      transform.apply_licm to %loop : !transform.any_op
      transform.loop.hoist_loop_invariant_subsets %loop : !transform.any_op
    }
    %loops_1 = transform.structured.match ops{["scf.for"]} in %scope : (!transform.any_op) -> !transform.any_op
    transform.foreach %loops_1 : !transform.any_op {
    ^bb0(%loop: !transform.any_op):
      transform.apply_licm to %loop : !transform.any_op
      transform.loop.hoist_loop_invariant_subsets %loop : !transform.any_op
    }
    transform.apply_patterns to %scope {
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = "innerreduction"
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %scope : !transform.any_op
    transform.yield
  }
}
