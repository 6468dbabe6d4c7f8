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
// that stay in registers across the window. epilogue_regs = 0: the bias
// and the epilogue are passes of their own over the thread tile, vectorized
// along the output row (ew_vec); 1: they are fused into the register tiles
// of the root, the accumulators start from the bias and leave through the
// epilogue.
// Knobs: par_c, par_h thread tile (channels, output rows); reg_h, reg_w
// register tile; epilogue_regs; ew_vec vector width of the epilogue.
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

    %regs = transform.tune.knob<"epilogue_regs"> = 0 from options = [0, 1] -> !transform.param<i64>
    transform.tune.alternatives<"epilogue_regs"> selected_region = %regs : !transform.param<i64> {
      // The convolution: one channel, reg_h x reg_w outputs, the window
      // inside.
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
    }, {
      // Register tiles of the root, the convolution, its bias and the ops
      // between fused into each (not the padding: each thread pads its
      // window once), the window's loop inside the convolution's.
      %root_1 = transform.structured.match attributes{int21.root} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %root_r, %r_n, %r_c, %r_h, %r_w = transform.structured.tile_using_for %root_1 tile_sizes [1, 1, %reg_h, %reg_w]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      %inner = transform.structured.match interface{LinalgOp} attributes{int21.fuse} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %fused_r, %r_w_1 = transform.structured.fuse_into_containing_op %inner into %r_w
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      %conv = transform.structured.match attributes{int21.anchor} in %r_w_1 : (!transform.any_op) -> !transform.any_op
      %conv_k, %l_kh, %l_kw = transform.structured.tile_using_for %conv tile_sizes [0, 0, 0, 0, 1, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @cpu.peel failures(propagate) (%r_w_1) : (!transform.any_op) -> ()
      transform.include @cpu.peel failures(propagate) (%r_h) : (!transform.any_op) -> ()
    }

    transform.include @cpu.vectorize_windows failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.yield
  }

  // A depthwise convolution with its channels along the vectors (the
  // lowering's generic with loops n, cb, ci, oh, ow, kh, kw over the input
  // transposed into blocks of L channels, [N, C/L, H, W, L], and padded;
  // see LowerToLinalg/NN.cpp): the root is tiled into threads over channel
  // blocks and output rows, and the convolution, its bias, the padding and
  // the transpose of the input are fused into each thread tile, so that a
  // thread lays out and pads only the rows its window reads. The transpose
  // runs in tiles of 16 pixels x L channels (a transpose of registers). The
  // convolution runs in register tiles of reg_w output pixels x L channels,
  // the window's loop inside: each step is reg_w multiply-adds of an input
  // vector (L channels of one pixel, at any stride) and one weight vector
  // into accumulators that stay in registers across the window, transposed
  // once a tile into the NCHW output. epilogue_regs = 0: the bias and the
  // epilogue are passes of their own, vectorized along the output row; 1:
  // they are fused into the register tiles of the root, on the transposed
  // accumulators (measured no faster: 1152 channels 5x5 at 7x7 0.081 ->
  // 0.083 ms, 144 at 56x56 stride 2 0.327 -> 0.341; the transposes
  // dominate). The input's transpose is fused into the thread tiles after
  // the padding, never into the register tiles.
  // Knobs: par_cb, par_h thread tile (channel blocks, output rows); reg_w
  // register tile (output pixels); epilogue_regs; ew_vec vector width of
  // the epilogue.
  transform.named_sequence @cpu.depthwise_channel_lanes(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %par_cb = transform.tune.knob<"par_cb"> options = [1, 2, 4, 8, 16] -> !transform.param<i64>
    %par_h = transform.tune.knob<"par_h"> options = [1, 2, 4, 7, 8, 14, 16, 28, 56, 112] -> !transform.param<i64>
    %reg_w = transform.tune.knob<"reg_w"> options = [4, 6, 7, 8, 12, 14, 16] -> !transform.param<i64>
    %ew_vec = transform.tune.knob<"ew_vec"> options = [8, 16, 32, 64] -> !transform.param<i64>

    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [1, %par_cb, 0, %par_h]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_0 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %pack_0 = transform.structured.match attributes{int21.pack} in %group : (!transform.any_op) -> !transform.any_op
    %fused_pack, %forall_1 = transform.structured.fuse_into_containing_op %pack_0 into %forall_0
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)

    // The input's transpose: 16 pixels x L channels a step.
    %pack = transform.structured.match attributes{int21.pack} in %forall_1 : (!transform.any_op) -> !transform.any_op
    %pack_r, %p_n, %p_cb, %p_h, %p_w = transform.structured.tile_using_for %pack tile_sizes [1, 1, 1, 16, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.include @cpu.peel failures(propagate) (%p_w) : (!transform.any_op) -> ()

    %regs = transform.tune.knob<"epilogue_regs"> = 0 from options = [0, 1] -> !transform.param<i64>
    transform.tune.alternatives<"epilogue_regs"> selected_region = %regs : !transform.param<i64> {
      // The convolution: reg_w pixels x L channels, the window inside.
      %conv = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %conv_r, %l_n, %l_cb, %l_h, %l_w, %l_kh, %l_kw = transform.structured.tile_using_for %conv tile_sizes [1, 1, 0, 1, %reg_w, 1, 1]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      // (n, cb, oh, ow, ci, ...): the channels last, along the vectors.
      %step = transform.structured.interchange %conv_r iterator_interchange = [0, 1, 3, 4, 2, 5, 6]
        : (!transform.any_op) -> !transform.any_op
      transform.include @cpu.peel failures(propagate) (%l_w) : (!transform.any_op) -> ()

      // The epilogue and the bias, along the output row.
      %ew = transform.structured.match attributes{int21.ew} in %forall_1 : (!transform.any_op) -> !transform.any_op
      transform.foreach %ew : !transform.any_op {
      ^bb0(%op: !transform.any_op):
        %op_r, %e0, %e1, %e2, %e3, %e4 = transform.structured.tile_using_for %op tile_sizes [1, 1, 1, 1, %ew_vec]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
        transform.include @cpu.peel failures(propagate) (%e4) : (!transform.any_op) -> ()
      }
    }, {
      // Register tiles of the root (reg_w pixels of a row x L channels),
      // the convolution, its bias and the ops between fused into each (not
      // the padding nor the transpose of the input: each thread lays out
      // its window once).
      %root_1 = transform.structured.match attributes{int21.root} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %root_r, %r_n, %r_cb, %r_h, %r_w = transform.structured.tile_using_for %root_1 tile_sizes [1, 1, 0, 1, %reg_w]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      %inner = transform.structured.match interface{LinalgOp} attributes{int21.fuse} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %fused_r, %r_w_1 = transform.structured.fuse_into_containing_op %inner into %r_w
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      %conv = transform.structured.match attributes{int21.anchor} in %r_w_1 : (!transform.any_op) -> !transform.any_op
      %conv_k, %l_kh, %l_kw = transform.structured.tile_using_for %conv tile_sizes [0, 0, 0, 0, 0, 1, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      %step = transform.structured.interchange %conv_k iterator_interchange = [0, 1, 3, 4, 2, 5, 6]
        : (!transform.any_op) -> !transform.any_op
      transform.include @cpu.peel failures(propagate) (%r_w_1) : (!transform.any_op) -> ()
    }

    // (The same steps as the filter-lanes convolution's: folded to the
    // register tiles, each vectorized, the accumulators hoisted and
    // transposed once a tile.)
    transform.include @cpu.filter_lanes_vectors failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.yield
  }

  // The channel-lanes depthwise convolution of a dynamic group, whose output
  // rows and columns only a run knows: @cpu.depthwise_channel_lanes, but the
  // register tiles' parallel dimensions tiled before the window, so that
  // the pixels a row has beyond its last full register tile (peeled) are
  // tiled one by one outside the window's loops: each a register tile of
  // one pixel (a vector of L channels), its accumulator in registers across
  // the window as a full tile's are. The input's transpose likewise: tiles
  // of 16 pixels, the rest of a row one pixel at a time. epilogue_regs = 1
  // (the default) fuses the bias and the epilogue into every register tile,
  // the one-pixel ones too: on rows narrower than ew_vec the passes of
  // epilogue_regs = 0 run scalar (1 thread, MobileNetV2 at 160x160 10.5 ->
  // 9.7 ms, MnasNet 12.0 -> 11.3, EfficientNet-B0 at 3x96x80 25.8 -> 22.5).
  // Knobs as @cpu.depthwise_channel_lanes.
  transform.named_sequence @cpu.depthwise_channel_lanes_dynamic(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %par_cb = transform.tune.knob<"par_cb"> options = [1, 2, 4, 8, 16] -> !transform.param<i64>
    %par_h = transform.tune.knob<"par_h"> options = [1, 2, 4, 7, 8, 14, 16, 28, 56, 112] -> !transform.param<i64>
    %reg_w = transform.tune.knob<"reg_w"> options = [4, 6, 7, 8, 12, 14, 16] -> !transform.param<i64>
    %ew_vec = transform.tune.knob<"ew_vec"> options = [8, 16, 32, 64] -> !transform.param<i64>

    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [1, %par_cb, 0, %par_h]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_0 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    // The extents the fused tiles read of whole tensors (tensor.dim of the
    // transpose, of the padding: clones of them in the thread tile) resolved
    // to the input's, so that the transpose's only use in the thread tile is
    // the padding's slice of it.
    transform.apply_patterns to %group {
      transform.apply_patterns.memref.resolve_ranked_shaped_type_result_dims
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %pack_0 = transform.structured.match attributes{int21.pack} in %group : (!transform.any_op) -> !transform.any_op
    %fused_pack, %forall_1 = transform.structured.fuse_into_containing_op %pack_0 into %forall_0
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)

    %pack = transform.structured.match attributes{int21.pack} in %forall_1 : (!transform.any_op) -> !transform.any_op
    %pack_r, %p_n, %p_cb, %p_h, %p_w = transform.structured.tile_using_for %pack tile_sizes [1, 1, 1, 16, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.include @cpu.peel failures(propagate) (%p_w) : (!transform.any_op) -> ()

    %regs = transform.tune.knob<"epilogue_regs"> = 1 from options = [0, 1] -> !transform.param<i64>
    transform.tune.alternatives<"epilogue_regs"> selected_region = %regs : !transform.param<i64> {
      // Register tiles of reg_w pixels x L channels (n, cb, ci, oh, ow), the
      // remainder of a row one pixel at a time.
      %conv = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %conv_p, %l_n, %l_cb, %l_h, %l_w = transform.structured.tile_using_for %conv tile_sizes [1, 1, 0, 1, %reg_w]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @cpu.peel failures(propagate) (%l_w) : (!transform.any_op) -> ()

      // The epilogue and the bias, along the output row.
      %ew = transform.structured.match attributes{int21.ew} in %forall_1 : (!transform.any_op) -> !transform.any_op
      transform.foreach %ew : !transform.any_op {
      ^bb0(%op: !transform.any_op):
        %op_r, %e0, %e1, %e2, %e3, %e4 = transform.structured.tile_using_for %op tile_sizes [1, 1, 1, 1, %ew_vec]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
        transform.include @cpu.peel failures(propagate) (%e4) : (!transform.any_op) -> ()
      }
    }, {
      // Register tiles of the root (reg_w pixels of a row x L channels), the
      // convolution, its bias and the ops between fused into each, as
      // @cpu.depthwise_channel_lanes's epilogue_regs = 1; the pixels past a
      // row's last full tile one at a time, each a register tile of its own
      // (the root tiled by one, the rest fused into it): the epilogue and
      // the bias on vectors of L channels whatever the row, no pass over
      // the output of their own.
      %root_1 = transform.structured.match attributes{int21.root} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %root_r, %r_n, %r_cb, %r_h, %r_w = transform.structured.tile_using_for %root_1 tile_sizes [1, 1, 0, 1, %reg_w]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      %inner = transform.structured.match interface{LinalgOp} attributes{int21.fuse} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %fused_r, %r_w_1 = transform.structured.fuse_into_containing_op %inner into %r_w
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.sequence %r_w_1 : !transform.any_op failures(suppress) {
      ^bb0(%l: !transform.any_op):
        %for = transform.cast %l : !transform.any_op to !transform.op<"scf.for">
        %main, %rest = transform.loop.peel %for : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
        %rest_root = transform.structured.match attributes{int21.root} in %rest : (!transform.any_op) -> !transform.any_op
        %one, %l_one = transform.structured.tile_using_for %rest_root tile_sizes [0, 0, 0, 0, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
        %rest_inner = transform.structured.match interface{LinalgOp} attributes{int21.fuse} in %rest : (!transform.any_op) -> !transform.any_op
        %fused_one, %l_one_1 = transform.structured.fuse_into_containing_op %rest_inner into %l_one
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      }
    }
    // The window of every register tile, full or a remainder's: (n, cb, oh,
    // ow, ci, kh, kw), the channels along the vectors.
    %tiles = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
    transform.foreach %tiles : !transform.any_op {
    ^bb0(%tile: !transform.any_op):
      %step, %l_kh, %l_kw = transform.structured.tile_using_for %tile tile_sizes [0, 0, 0, 0, 0, 1, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      %interchanged = transform.structured.interchange %step iterator_interchange = [0, 1, 3, 4, 2, 5, 6]
        : (!transform.any_op) -> !transform.any_op
    }
    transform.include @cpu.filter_lanes_vectors failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.yield
  }

  // The row form of a dynamic group (a dynamic batch, or output rows and
  // columns that only a run knows): @cpu.depthwise_conv2d_nchw. With its
  // epilogue in passes of its own (epilogue_regs = 0), the register tiles
  // past the last full one of a thread tile (peeled: the columns beyond a
  // row's last full tile, the rows beyond the band's last) padded to a whole
  // register tile, so that every register tile is static and vectorizes as
  // a full one does: its input window and its accumulators copied into a
  // tile of reg_h x reg_w (zeros beyond the extents), the valid part of the
  // result written back; the epilogue's vectors likewise. With the epilogue
  // in the register tiles (epilogue_regs = 1, the default of a dynamic
  // batch of planes of static extents, whose tiles are all static), the
  // remainders over dynamic extents overlap the last full tile where the
  // extent holds one. Knobs as @cpu.depthwise_conv2d_nchw.
  transform.named_sequence @cpu.depthwise_conv2d_nchw_dynamic(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
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
    transform.apply_patterns to %group {
      transform.apply_patterns.memref.resolve_ranked_shaped_type_result_dims
      transform.apply_patterns.canonicalization
    } : !transform.any_op

    %regs = transform.tune.knob<"epilogue_regs"> = 0 from options = [0, 1] -> !transform.param<i64>
    transform.tune.alternatives<"epilogue_regs"> selected_region = %regs : !transform.param<i64> {
      // Register tiles of reg_h x reg_w outputs of one channel; the partial
      // ones (peeled) padded to whole tiles.
      %conv = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %conv_p, %l_n, %l_c, %l_h, %l_w = transform.structured.tile_using_for %conv tile_sizes [1, 1, %reg_h, %reg_w]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @cpu.peel_only failures(propagate) (%l_w) : (!transform.any_op) -> ()
      transform.include @cpu.peel_only failures(propagate) (%l_h) : (!transform.any_op) -> ()
      transform.apply_patterns to %group {
        transform.apply_patterns.linalg.tiling_canonicalization
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      %tiles = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
      transform.foreach %tiles : !transform.any_op {
      ^bb0(%tile: !transform.any_op):
        transform.int21.pad_dynamic_tile %tile dims [2, 3] to [%reg_h, %reg_w] : !transform.any_op, !transform.param<i64>, !transform.param<i64>
      }
      // The window of every register tile, one step at a time.
      %padded_tiles = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
      transform.foreach %padded_tiles : !transform.any_op {
      ^bb0(%tile: !transform.any_op):
        %step, %l_kh, %l_kw = transform.structured.tile_using_for %tile tile_sizes [0, 0, 0, 0, 1, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      }

      // The epilogue and the bias, along the output row.
      %ew = transform.structured.match attributes{int21.ew} in %forall_1 : (!transform.any_op) -> !transform.any_op
      transform.foreach %ew : !transform.any_op {
      ^bb0(%op: !transform.any_op):
        %op_r, %e0, %e1, %e2, %e3 = transform.structured.tile_using_for %op tile_sizes [1, 1, 1, %ew_vec]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
        transform.include @cpu.peel failures(propagate) (%e3) : (!transform.any_op) -> ()
      }

    }, {
      // Register tiles of the root (reg_h x reg_w outputs of one channel),
      // the convolution, its bias and the ops between fused into each, as
      // @cpu.depthwise_conv2d_nchw's epilogue_regs = 1: the accumulators
      // start from the bias and leave through the epilogue. A row's columns
      // past its last full tile, and a band's rows past its last, run as
      // one whole tile that overlaps the last full one where the extent
      // holds a tile (a tile only writes its outputs), one at a time
      // otherwise.
      %root_1 = transform.structured.match attributes{int21.root} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %root_r, %r_n, %r_c, %r_h, %r_w = transform.structured.tile_using_for %root_1 tile_sizes [1, 1, %reg_h, %reg_w]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      %inner = transform.structured.match interface{LinalgOp} attributes{int21.fuse} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %fused_r, %r_w_1 = transform.structured.fuse_into_containing_op %inner into %r_w
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      %conv = transform.structured.match attributes{int21.anchor} in %r_w_1 : (!transform.any_op) -> !transform.any_op
      %conv_k, %l_kh, %l_kw = transform.structured.tile_using_for %conv tile_sizes [0, 0, 0, 0, 1, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @cpu.peel_overlap failures(propagate) (%r_w_1) : (!transform.any_op) -> ()
      transform.include @cpu.peel_overlap failures(propagate) (%r_h) : (!transform.any_op) -> ()
    }

    transform.include @cpu.vectorize_windows failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.yield
  }
}

