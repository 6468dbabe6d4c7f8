// CPU fallback schedules for groups no specific template matches (reductions,
// softmax, normalisations, pooling, ...): the root is tiled into threads over
// its leading parallel dimensions and the rest of the group is fused into the
// tiles; the tiles stay scalar loops. int21-cpu-schedule decomposes
// aggregate ops such as linalg.softmax into generics first, so that they fuse.
// Knobs: par_0, par_1 thread tiles of the two leading dimensions.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @cpu.outer_forall_1d(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %par_0 = transform.tune.knob<"par_0"> options = [1, 2, 4, 8, 16, 32, 64, 128] -> !transform.param<i64>
    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [%par_0]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }

  transform.named_sequence @cpu.outer_forall_2d(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %par_0 = transform.tune.knob<"par_0"> options = [1, 2, 4, 8, 16, 32, 64, 128] -> !transform.param<i64>
    %par_1 = transform.tune.knob<"par_1"> options = [1, 2, 4, 8, 16, 32, 64, 128] -> !transform.param<i64>
    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [%par_0, %par_1]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
