// GPU schedules for the fusion groups without a contraction template:
// elementwise groups, reductions (softmax, layer norm, reduce ops), pooling
// and direct convolutions. Each tiles the root's leading parallel dimensions
// into blocks and threads and fuses the rest of the group into both (see
// @gpu.tile_fuse_<n>d in common.mlir): a thread computes its outputs from
// start to end, reductions included. The classes differ in their default
// knobs (GPU/Rules.cpp: parallelKnobs) and are separate so that the
// search and the knowledge base keep them apart.
// Knobs: blk_<d> block tile of dimension d, thr_<d> threads along d.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @gpu.elementwise_1d(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %blk_0 = transform.tune.knob<"blk_0"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_0 = transform.tune.knob<"thr_0"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    transform.include @gpu.tile_fuse_1d failures(propagate) (%group, %blk_0, %thr_0)
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> ()
    transform.apply_patterns to %group {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }

  transform.named_sequence @gpu.elementwise_2d(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %blk_0 = transform.tune.knob<"blk_0"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %blk_1 = transform.tune.knob<"blk_1"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_0 = transform.tune.knob<"thr_0"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_1 = transform.tune.knob<"thr_1"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    transform.include @gpu.tile_fuse_2d failures(propagate) (%group, %blk_0, %blk_1, %thr_0, %thr_1)
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> ()
    transform.apply_patterns to %group {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }

  transform.named_sequence @gpu.elementwise_3d(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %blk_0 = transform.tune.knob<"blk_0"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %blk_1 = transform.tune.knob<"blk_1"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %blk_2 = transform.tune.knob<"blk_2"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_0 = transform.tune.knob<"thr_0"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_1 = transform.tune.knob<"thr_1"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_2 = transform.tune.knob<"thr_2"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    transform.include @gpu.tile_fuse_3d failures(propagate) (%group, %blk_0, %blk_1, %blk_2, %thr_0, %thr_1, %thr_2)
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> ()
    transform.apply_patterns to %group {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }

  transform.named_sequence @gpu.elementwise_4d(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %blk_1 = transform.tune.knob<"blk_1"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %blk_2 = transform.tune.knob<"blk_2"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %blk_3 = transform.tune.knob<"blk_3"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_1 = transform.tune.knob<"thr_1"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_2 = transform.tune.knob<"thr_2"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_3 = transform.tune.knob<"thr_3"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    transform.include @gpu.tile_fuse_4d failures(propagate) (%group, %blk_1, %blk_2, %blk_3, %thr_1, %thr_2, %thr_3)
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> ()
    transform.apply_patterns to %group {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }

  transform.named_sequence @gpu.reduction_1d(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %blk_0 = transform.tune.knob<"blk_0"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_0 = transform.tune.knob<"thr_0"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    transform.include @gpu.tile_fuse_1d failures(propagate) (%group, %blk_0, %thr_0)
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> ()
    transform.apply_patterns to %group {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }

  transform.named_sequence @gpu.reduction_2d(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %blk_0 = transform.tune.knob<"blk_0"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %blk_1 = transform.tune.knob<"blk_1"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_0 = transform.tune.knob<"thr_0"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_1 = transform.tune.knob<"thr_1"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    transform.include @gpu.tile_fuse_2d failures(propagate) (%group, %blk_0, %blk_1, %thr_0, %thr_1)
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> ()
    transform.apply_patterns to %group {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }

  transform.named_sequence @gpu.reduction_3d(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %blk_0 = transform.tune.knob<"blk_0"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %blk_1 = transform.tune.knob<"blk_1"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %blk_2 = transform.tune.knob<"blk_2"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_0 = transform.tune.knob<"thr_0"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_1 = transform.tune.knob<"thr_1"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_2 = transform.tune.knob<"thr_2"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    transform.include @gpu.tile_fuse_3d failures(propagate) (%group, %blk_0, %blk_1, %blk_2, %thr_0, %thr_1, %thr_2)
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> ()
    transform.apply_patterns to %group {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }

  transform.named_sequence @gpu.reduction_4d(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %blk_1 = transform.tune.knob<"blk_1"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %blk_2 = transform.tune.knob<"blk_2"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %blk_3 = transform.tune.knob<"blk_3"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_1 = transform.tune.knob<"thr_1"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_2 = transform.tune.knob<"thr_2"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_3 = transform.tune.knob<"thr_3"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    transform.include @gpu.tile_fuse_4d failures(propagate) (%group, %blk_1, %blk_2, %blk_3, %thr_1, %thr_2, %thr_3)
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> ()
    transform.apply_patterns to %group {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }

  transform.named_sequence @gpu.pooling_nchw(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %blk_1 = transform.tune.knob<"blk_1"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %blk_2 = transform.tune.knob<"blk_2"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %blk_3 = transform.tune.knob<"blk_3"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_1 = transform.tune.knob<"thr_1"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_2 = transform.tune.knob<"thr_2"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_3 = transform.tune.knob<"thr_3"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    transform.include @gpu.tile_fuse_4d failures(propagate) (%group, %blk_1, %blk_2, %blk_3, %thr_1, %thr_2, %thr_3)
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> ()
    transform.apply_patterns to %group {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }

  transform.named_sequence @gpu.conv2d_nchw(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %blk_1 = transform.tune.knob<"blk_1"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %blk_2 = transform.tune.knob<"blk_2"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %blk_3 = transform.tune.knob<"blk_3"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_1 = transform.tune.knob<"thr_1"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_2 = transform.tune.knob<"thr_2"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %thr_3 = transform.tune.knob<"thr_3"> options = [1, 2, 4, 8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    transform.include @gpu.tile_fuse_4d failures(propagate) (%group, %blk_1, %blk_2, %blk_3, %thr_1, %thr_2, %thr_3)
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> ()
    transform.apply_patterns to %group {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}
