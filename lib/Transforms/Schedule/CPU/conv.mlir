// CPU schedule for convolution fusion groups (linalg.conv_2d_nchw_fchw):
// im2col turns the convolution into a batched contraction
// n x f x (oh*ow) x (c*kh*kw), which is tiled into threads over f and oh*ow
// with the im2col producer fused into each thread tile, then tiled for the
// cache over k and into a register tile like @cpu.batch_matmul. The
// elementwise ops of the group (bias, residual, activation) are tiled into
// threads over channels and vectorized along the output row.
// Knobs: par_* thread tile, cache_k, reg_* register tile of the contraction;
// ew_par_c channels per thread tile and ew_vec vector width of the
// elementwise ops.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @cpu.conv2d_nchw(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %par_m = transform.tune.knob<"par_m"> options = [8, 16, 32, 64, 128] -> !transform.param<i64>
    %par_n = transform.tune.knob<"par_n"> options = [32, 64, 128, 224, 256, 512] -> !transform.param<i64>
    %cache_k = transform.tune.knob<"cache_k"> options = [64, 128, 192, 256, 512] -> !transform.param<i64>
    %reg_m = transform.tune.knob<"reg_m"> options = [1, 2, 4, 6, 8] -> !transform.param<i64>
    %reg_n = transform.tune.knob<"reg_n"> options = [8, 16, 32, 48, 64] -> !transform.param<i64>
    %ew_par_c = transform.tune.knob<"ew_par_c"> options = [1, 4, 8, 16, 32] -> !transform.param<i64>
    %ew_vec = transform.tune.knob<"ew_vec"> options = [8, 16, 32, 64] -> !transform.param<i64>

    %conv = transform.structured.match attributes{int21.anchor} in %group : (!transform.any_op) -> !transform.any_op
    %col, %result = transform.structured.convert_conv2d_to_img2col %conv : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %mm = transform.get_producer_of_operand %result[0] : (!transform.any_op) -> !transform.any_op
    transform.annotate %mm "int21.anchor" : !transform.any_op
    %mm_t, %forall = transform.structured.tile_using_forall %mm tile_sizes [1, %par_m, %par_n]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %col_t, %forall_1 = transform.structured.fuse_into_containing_op %col into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %mm_k, %loop_k = transform.structured.tile_using_for %mm_t tile_sizes [0, 0, 0, %cache_k]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %mm_r, %loop_rb, %loop_rm, %loop_rn, %loop_rk = transform.structured.tile_using_for %mm_k tile_sizes [1, %reg_m, %reg_n, 1]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.include @cpu.peel failures(propagate) (%loop_rn) : (!transform.any_op) -> ()
    transform.include @cpu.peel failures(propagate) (%loop_rm) : (!transform.any_op) -> ()

    %ew = transform.structured.match attributes{int21.ew} in %group : (!transform.any_op) -> !transform.any_op
    transform.foreach %ew : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %op_t, %ew_forall = transform.structured.tile_using_forall %op tile_sizes [1, %ew_par_c]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %op_r, %l0, %l1, %l2, %l3 = transform.structured.tile_using_for %op_t tile_sizes [1, 1, 1, %ew_vec]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @cpu.peel failures(propagate) (%l3) : (!transform.any_op) -> ()
    }

    transform.include @cpu.vectorize_static failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.include @cpu.lower_vectors failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.yield
  }
}
