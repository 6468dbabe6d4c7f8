// CPU schedule for depthwise convolution fusion groups (the lowering's
// generic with loops n, c, oh, ow, kh, kw; any stride and dilation): the
// root (the epilogue, or the convolution itself) is tiled into threads over
// channels and output rows, and the convolution, its bias and the padding of
// its input are fused into each thread tile, so that a thread pads and reads
// only its own window. In a thread tile the convolution is tiled into
// register tiles of reg_h output rows by reg_w output columns of one
// channel, with a loop over the window (kh, kw) inside: once the unit
// dimensions are folded away, each step is a multiply-add of reg_h x reg_w
// input values and one weight (fused into vector.fma) into accumulators
// that stay in registers across the window. The epilogue is vectorized
// along the output row.
// Knobs: par_c, par_h thread tile (channels, output rows); reg_h, reg_w
// register tile; ew_vec vector width of the epilogue.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @cpu.depthwise_conv2d_nchw(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %par_c = transform.tune.knob<"par_c"> options = [1, 2, 4, 8, 16, 32, 64] -> !transform.param<i64>
    %par_h = transform.tune.knob<"par_h"> options = [1, 2, 4, 7, 8, 14, 16, 28, 56, 112] -> !transform.param<i64>
    %reg_h = transform.tune.knob<"reg_h"> options = [1, 2, 3, 4, 6, 7, 8] -> !transform.param<i64>
    %reg_w = transform.tune.knob<"reg_w"> options = [8, 16, 24, 28, 32, 48, 64] -> !transform.param<i64>
    %ew_vec = transform.tune.knob<"ew_vec"> options = [8, 16, 32, 64] -> !transform.param<i64>

    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [1, %par_c, %par_h]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)

    // The convolution: one channel, reg_h x reg_w outputs, the window inside.
    %conv = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
    %conv_r, %l_n, %l_c, %l_h, %l_w, %l_kh, %l_kw = transform.structured.tile_using_for %conv tile_sizes [1, 1, %reg_h, %reg_w, 1, 1]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.include @cpu.peel failures(propagate) (%l_w) : (!transform.any_op) -> ()
    transform.include @cpu.peel failures(propagate) (%l_h) : (!transform.any_op) -> ()

    // The epilogue and the bias, along the output row.
    %ew = transform.structured.match attributes{int21.ew} in %forall_1 : (!transform.any_op) -> !transform.any_op
    transform.foreach %ew : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %op_r, %e0, %e1, %e2, %e3 = transform.structured.tile_using_for %op tile_sizes [1, 1, 1, %ew_vec]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @cpu.peel failures(propagate) (%e3) : (!transform.any_op) -> ()
    }

    transform.include @cpu.vectorize_windows failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.yield
  }
}
