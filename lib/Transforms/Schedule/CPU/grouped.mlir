// CPU schedule for grouped convolution fusion groups (the lowering's generic
// with loops n, g, f, oh, ow, c, kh, kw: G groups of F filters, each over C
// input channels; any stride and dilation): the root (the epilogue over
// [N, G, F, OH, OW], or the convolution itself) is tiled into threads over
// groups, filters and output rows, and the convolution, its bias and the
// padding of its input are fused into each thread tile, so that a thread
// pads and reads only its own groups' window. In a thread tile the
// convolution is tiled into register tiles of reg_f filters x reg_h output
// rows x reg_w output columns with the loops over the group's channels and
// the window inside, and the reg_f filters unrolled in them: once the unit
// dimensions are folded away, each step reads a reg_h x reg_w box of the
// input once and multiplies it by reg_f broadcast weights into reg_f
// accumulator boxes (vector.fma) that stay in registers across the channels
// and the window. The epilogue is vectorized along the output row.
// Knobs: par_g, par_f, par_h thread tile (groups, filters of a group, output
// rows); reg_f, reg_h, reg_w register tile; ew_vec vector width of the
// epilogue.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @cpu.grouped_conv2d_nchw(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %par_g = transform.tune.knob<"par_g"> options = [1, 2, 4, 8, 16, 32, 64] -> !transform.param<i64>
    %par_f = transform.tune.knob<"par_f"> options = [1, 2, 4, 8, 16, 32, 64] -> !transform.param<i64>
    %par_h = transform.tune.knob<"par_h"> options = [1, 2, 4, 7, 8, 14, 16, 28, 56, 112] -> !transform.param<i64>
    %reg_f = transform.tune.knob<"reg_f"> options = [1, 2, 4, 8, 16] -> !transform.param<i64>
    %reg_h = transform.tune.knob<"reg_h"> options = [1, 2, 3, 4, 6, 7, 8] -> !transform.param<i64>
    %reg_w = transform.tune.knob<"reg_w"> options = [8, 16, 24, 28, 32, 48, 64] -> !transform.param<i64>
    %ew_vec = transform.tune.knob<"ew_vec"> options = [8, 16, 32, 64] -> !transform.param<i64>

    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [1, %par_g, %par_f, %par_h]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)

    %regs = transform.tune.knob<"epilogue_regs"> = 0 from options = [0, 1] -> !transform.param<i64>
    transform.tune.alternatives<"epilogue_regs"> selected_region = %regs : !transform.param<i64> {
      // The convolution: reg_f filters of one group, reg_h x reg_w outputs,
      // the group's channels and the window inside.
      %conv = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %conv_r, %l_n, %l_g, %l_f, %l_h, %l_w, %l_c, %l_kh, %l_kw = transform.structured.tile_using_for %conv tile_sizes [1, 1, %reg_f, %reg_h, %reg_w, 1, 1, 1]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      // One filter a step, the steps of the tile's filters unrolled inside the
      // window: each reads the same input box (one load, shared once CSE'd)
      // and broadcasts one weight, like a depthwise step, and the reg_f
      // accumulator boxes stay apart (each hoisted out of the loops).
      %step, %l_f1 = transform.structured.tile_using_for %conv_r tile_sizes [0, 0, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.int21.loop.full_unroll %l_f1 : !transform.any_op
      transform.include @cpu.peel failures(propagate) (%l_w) : (!transform.any_op) -> ()
      transform.include @cpu.peel failures(propagate) (%l_h) : (!transform.any_op) -> ()
      transform.include @cpu.peel failures(propagate) (%l_f) : (!transform.any_op) -> ()

      // The epilogue and the bias, along the output row.
      %ew = transform.structured.match attributes{int21.ew} in %forall_1 : (!transform.any_op) -> !transform.any_op
      transform.foreach %ew : !transform.any_op {
      ^bb0(%op: !transform.any_op):
        %op_r, %e0, %e1, %e2, %e3, %e4 = transform.structured.tile_using_for %op tile_sizes [1, 1, 1, 1, %ew_vec]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
        transform.include @cpu.peel failures(propagate) (%e4) : (!transform.any_op) -> ()
      }

    }, {
      // Register tiles of the root (reg_f filters of one group, reg_h x
      // reg_w outputs), the convolution, its bias and the ops between fused
      // into each (not the padding: each thread pads its window once); the
      // group's channels and the window inside, the filters' steps
      // unrolled as above.
      %root_1 = transform.structured.match attributes{int21.root} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %root_r, %r_n, %r_g, %r_f, %r_h, %r_w = transform.structured.tile_using_for %root_1 tile_sizes [1, 1, %reg_f, %reg_h, %reg_w]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      %inner = transform.structured.match interface{LinalgOp} attributes{int21.fuse} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %fused_r, %r_w_1 = transform.structured.fuse_into_containing_op %inner into %r_w
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      %conv = transform.structured.match attributes{int21.anchor} in %r_w_1 : (!transform.any_op) -> !transform.any_op
      %conv_k, %l_c, %l_kh, %l_kw = transform.structured.tile_using_for %conv tile_sizes [0, 0, 0, 0, 0, 1, 1, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      %step, %l_f1 = transform.structured.tile_using_for %conv_k tile_sizes [0, 0, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.int21.loop.full_unroll %l_f1 : !transform.any_op
      transform.include @cpu.peel failures(propagate) (%r_w_1) : (!transform.any_op) -> ()
      transform.include @cpu.peel failures(propagate) (%r_h) : (!transform.any_op) -> ()
      transform.include @cpu.peel failures(propagate) (%r_f) : (!transform.any_op) -> ()
    }
    transform.include @cpu.vectorize_windows failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.yield
  }

  // The same on output maps whose extents only a run knows (the generic
  // code of a dynamic model): thread tiles over groups, filters and bands of
  // par_h output rows; register tiles of reg_f filters x reg_h rows x reg_w
  // columns, the partial ones (peeled) padded to whole tiles
  // (transform.int21.pad_dynamic_tile), each step of the group's channels
  // and the window a box of the input times reg_f broadcast weights; the
  // bias and the epilogue in passes of their own along the row. Knobs as
  // in @cpu.grouped_conv2d_nchw, without epilogue_regs.
  transform.named_sequence @cpu.grouped_conv2d_nchw_dynamic(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %par_g = transform.tune.knob<"par_g"> options = [1, 2, 4, 8, 16, 32, 64] -> !transform.param<i64>
    %par_f = transform.tune.knob<"par_f"> options = [1, 2, 4, 8, 16, 32, 64] -> !transform.param<i64>
    %par_h = transform.tune.knob<"par_h"> options = [1, 2, 4, 7, 8, 14, 16, 28, 56, 112] -> !transform.param<i64>
    %reg_f = transform.tune.knob<"reg_f"> options = [1, 2, 4, 8, 16] -> !transform.param<i64>
    %reg_h = transform.tune.knob<"reg_h"> options = [1, 2, 3, 4, 6, 7, 8] -> !transform.param<i64>
    %reg_w = transform.tune.knob<"reg_w"> options = [8, 16, 24, 28, 32, 48, 64] -> !transform.param<i64>
    %ew_vec = transform.tune.knob<"ew_vec"> options = [8, 16, 32, 64] -> !transform.param<i64>

    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [1, %par_g, %par_f, %par_h]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.apply_patterns to %group {
      transform.apply_patterns.memref.resolve_ranked_shaped_type_result_dims
      transform.apply_patterns.canonicalization
    } : !transform.any_op

    // Register tiles of reg_f filters x reg_h x reg_w outputs of one group;
    // the partial ones (peeled) padded to whole tiles.
    %conv = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
    %conv_p, %l_n, %l_g, %l_f, %l_h, %l_w = transform.structured.tile_using_for %conv tile_sizes [1, 1, %reg_f, %reg_h, %reg_w]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.include @cpu.peel_only failures(propagate) (%l_w) : (!transform.any_op) -> ()
    transform.include @cpu.peel_only failures(propagate) (%l_h) : (!transform.any_op) -> ()
    transform.apply_patterns to %group {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %tiles = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
    transform.foreach %tiles : !transform.any_op {
    ^bb0(%tile: !transform.any_op):
      transform.int21.pad_dynamic_tile %tile dims [3, 4] to [%reg_h, %reg_w] : !transform.any_op, !transform.param<i64>, !transform.param<i64>
    }
    // The channels and the window of every register tile one step at a
    // time, its filters' steps unrolled (see @cpu.grouped_conv2d_nchw).
    %padded_tiles = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
    transform.foreach %padded_tiles : !transform.any_op {
    ^bb0(%tile: !transform.any_op):
      %steps, %l_c, %l_kh, %l_kw = transform.structured.tile_using_for %tile tile_sizes [0, 0, 0, 0, 0, 1, 1, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      %step, %l_f1 = transform.structured.tile_using_for %steps tile_sizes [0, 0, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.int21.loop.full_unroll %l_f1 : !transform.any_op
    }

    // The epilogue and the bias, along the output row.
    %ew = transform.structured.match attributes{int21.ew} in %forall_1 : (!transform.any_op) -> !transform.any_op
    transform.foreach %ew : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %op_r, %e0, %e1, %e2, %e3, %e4 = transform.structured.tile_using_for %op tile_sizes [1, 1, 1, 1, %ew_vec]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @cpu.peel failures(propagate) (%e4) : (!transform.any_op) -> ()
    }

    transform.include @cpu.vectorize_windows failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.yield
  }
}
