// CPU schedules for elementwise fusion groups (every op all-parallel, the
// same iteration space as the root): the root is tiled into threads, the other
// ops of the group are fused into its tiles, and every tile is vectorized
// along the innermost dimension. One sequence per rank, since tile sizes are
// given per dimension.
// Knobs: par_<d> thread tile of dimension d, vec vector width (innermost).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @cpu.elementwise_1d(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %par_0 = transform.tune.knob<"par_0"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] -> !transform.param<i64>
    %vec = transform.tune.knob<"vec"> options = [4, 8, 16, 32, 64] -> !transform.param<i64>
    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [%par_0]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %ew = transform.structured.match attributes{int21.ew} in %forall_1 : (!transform.any_op) -> !transform.any_op
    transform.foreach %ew : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %op_r, %l0 = transform.structured.tile_using_for %op tile_sizes [%vec]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      transform.include @cpu.peel failures(propagate) (%l0) : (!transform.any_op) -> ()
    }
    transform.include @cpu.vectorize_static failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.include @cpu.lower_vectors failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.yield
  }

  transform.named_sequence @cpu.elementwise_2d(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %par_0 = transform.tune.knob<"par_0"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] -> !transform.param<i64>
    %par_1 = transform.tune.knob<"par_1"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] -> !transform.param<i64>
    %vec = transform.tune.knob<"vec"> options = [4, 8, 16, 32, 64] -> !transform.param<i64>
    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [%par_0, %par_1]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %ew = transform.structured.match attributes{int21.ew} in %forall_1 : (!transform.any_op) -> !transform.any_op
    transform.foreach %ew : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %op_r, %l0, %l1 = transform.structured.tile_using_for %op tile_sizes [1, %vec]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @cpu.peel failures(propagate) (%l1) : (!transform.any_op) -> ()
    }
    transform.include @cpu.vectorize_static failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.include @cpu.lower_vectors failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.yield
  }

  transform.named_sequence @cpu.elementwise_3d(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %par_0 = transform.tune.knob<"par_0"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] -> !transform.param<i64>
    %par_1 = transform.tune.knob<"par_1"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] -> !transform.param<i64>
    %par_2 = transform.tune.knob<"par_2"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] -> !transform.param<i64>
    %vec = transform.tune.knob<"vec"> options = [4, 8, 16, 32, 64] -> !transform.param<i64>
    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [%par_0, %par_1, %par_2]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %ew = transform.structured.match attributes{int21.ew} in %forall_1 : (!transform.any_op) -> !transform.any_op
    transform.foreach %ew : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %op_r, %l0, %l1, %l2 = transform.structured.tile_using_for %op tile_sizes [1, 1, %vec]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @cpu.peel failures(propagate) (%l2) : (!transform.any_op) -> ()
    }
    transform.include @cpu.vectorize_static failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.include @cpu.lower_vectors failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.yield
  }

  transform.named_sequence @cpu.elementwise_4d(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %par_0 = transform.tune.knob<"par_0"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] -> !transform.param<i64>
    %par_1 = transform.tune.knob<"par_1"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] -> !transform.param<i64>
    %par_2 = transform.tune.knob<"par_2"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] -> !transform.param<i64>
    %par_3 = transform.tune.knob<"par_3"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] -> !transform.param<i64>
    %vec = transform.tune.knob<"vec"> options = [4, 8, 16, 32, 64] -> !transform.param<i64>
    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [%par_0, %par_1, %par_2, %par_3]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %ew = transform.structured.match attributes{int21.ew} in %forall_1 : (!transform.any_op) -> !transform.any_op
    transform.foreach %ew : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %op_r, %l0, %l1, %l2, %l3 = transform.structured.tile_using_for %op tile_sizes [1, 1, 1, %vec]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @cpu.peel failures(propagate) (%l3) : (!transform.any_op) -> ()
    }
    transform.include @cpu.vectorize_static failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.include @cpu.lower_vectors failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.yield
  }

}
