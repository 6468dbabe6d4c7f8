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
  // (promote = 1) or read from global memory (promote = 0). The copies are
  // spread over the block's threads when the kernel is mapped.
  transform.named_sequence @gpu.promote_operands(%mm: !transform.any_op {transform.readonly}) {
    %promote = transform.tune.knob<"promote"> = 1 from options = [0, 1] -> !transform.param<i64>
    transform.tune.alternatives<"promote"> selected_region = %promote : !transform.param<i64> {
      transform.yield
    }, {
      %a = transform.get_operand %mm[0] : (!transform.any_op) -> !transform.any_value
      %pa = transform.structured.promote_tensor to #gpu.address_space<workgroup> %a : !transform.any_value
      %b = transform.get_operand %mm[1] : (!transform.any_op) -> !transform.any_value
      %pb = transform.structured.promote_tensor to #gpu.address_space<workgroup> %b : !transform.any_value
      transform.yield
    }
    transform.yield
  }
}
