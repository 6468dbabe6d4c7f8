// CPU schedule for convolution fusion groups (linalg.conv_2d_nchw_fchw, one
// group, any stride), two algorithms selected by the knob `direct`:
//
// direct = 0, im2col: the convolution becomes a batched contraction
// n x f x (oh*ow) x (c*kh*kw), which is tiled into threads over f and oh*ow
// with the im2col producer fused into each thread tile, then tiled for the
// cache over k and into a register tile like @cpu.batch_matmul. The
// elementwise ops of the group (bias, residual, activation) are tiled into
// threads over channels and vectorized along the output row. Knobs: par_m,
// par_n thread tile, cache_k, reg_m, reg_n register tile of the
// contraction; col_w pixels a vector of the im2col copy (a divisor of the
// output row); ew_par_c channels per thread tile of the elementwise ops.
//
// direct = 1, a window convolution like @cpu.grouped_conv2d_nchw of one
// group: the root (the epilogue over [N, F, OH, OW], or the convolution) is
// tiled into threads over filters and output rows, the convolution, its
// bias and the padding of its input fused into each thread tile; register
// tiles of reg_f filters x reg_h output rows x reg_w output columns read a
// box of the input a step (contiguous at stride 1: no im2col copy) and
// multiply it by reg_f broadcast weights. Knobs: par_f, par_h thread tile;
// reg_f, reg_h, reg_w register tile.
//
// ew_vec, the epilogue's vector width along the output row, is shared.
module attributes {transform.with_named_sequence} {
  // A one-group convolution with its weight in blocks of 16 filters, [F/16,
  // C, KH, KW, 16] (loops n, fb, fi, oh, ow, c, kh, kw over an output
  // [N, F/16, 16, OH, OW]; see LowerToLinalg/NN.cpp): the root (the epilogue
  // over that output, or the convolution) is tiled into threads over blocks
  // of filters and output rows, the convolution, its bias and the padding of
  // its input fused into each thread tile; register tiles of reg_fb blocks
  // x reg_w output columns of one row, interchanged so that the filters run
  // along the vectors: a step (of c x kh x kw) loads reg_fb weight vectors
  // (each block's weight contiguous) and broadcasts reg_w input elements
  // (any stride); the accumulators stay in registers across the channels
  // and the window and are transposed into the output row once.
  // epilogue_regs = 0: the bias and the epilogue are passes of their own
  // over the thread tile, vectorized along the output row (ew_vec).
  // epilogue_regs = 1: register tiles of the root, the convolution, its bias
  // and the ops between fused into each: the accumulators start from the
  // bias and leave through the epilogue once a tile, where three passes
  // over a thread tile larger than L1 cost as much as a short reduction (a
  // stem of 3 channels: 27 products a pixel). Knobs: par_fb, par_h thread
  // tile; reg_fb, reg_w register tile; epilogue_regs; ew_vec.
  transform.named_sequence @cpu.conv2d_filter_lanes(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %par_fb = transform.tune.knob<"par_fb"> options = [1, 2, 4, 8, 16] -> !transform.param<i64>
    %par_h = transform.tune.knob<"par_h"> options = [1, 2, 4, 7, 8, 14, 28, 56] -> !transform.param<i64>
    %reg_fb = transform.tune.knob<"reg_fb"> options = [1, 2, 4] -> !transform.param<i64>
    %reg_w = transform.tune.knob<"reg_w"> options = [4, 6, 7, 8, 12, 14, 16] -> !transform.param<i64>
    %ew_vec = transform.tune.knob<"ew_vec"> options = [8, 16, 32, 64] -> !transform.param<i64>

    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [1, %par_fb, 0, %par_h]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)

    %regs = transform.tune.knob<"epilogue_regs"> = 0 from options = [0, 1] -> !transform.param<i64>
    transform.tune.alternatives<"epilogue_regs"> selected_region = %regs : !transform.param<i64> {
      %conv = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %conv_r, %l_n, %l_fb, %l_h, %l_w, %l_c, %l_kh, %l_kw = transform.structured.tile_using_for %conv tile_sizes [1, %reg_fb, 0, 1, %reg_w, 1, 1, 1]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      // (n, oh, ow, fb, fi, ...): the filters last, along the vectors.
      %step = transform.structured.interchange %conv_r iterator_interchange = [0, 3, 4, 1, 2, 5, 6, 7]
        : (!transform.any_op) -> !transform.any_op
      transform.include @cpu.peel failures(propagate) (%l_w) : (!transform.any_op) -> ()
      transform.include @cpu.peel failures(propagate) (%l_fb) : (!transform.any_op) -> ()

      %ew = transform.structured.match attributes{int21.ew} in %forall_1 : (!transform.any_op) -> !transform.any_op
      transform.foreach %ew : !transform.any_op {
      ^bb0(%op: !transform.any_op):
        %op_r, %e0, %e1, %e2, %e3, %e4 = transform.structured.tile_using_for %op tile_sizes [1, 1, 1, 1, %ew_vec]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
        transform.include @cpu.peel failures(propagate) (%e4) : (!transform.any_op) -> ()
      }
    }, {
      // The root's register tiles; the convolution, its bias and the ops
      // between (the group's linalg ops, not the padding: each thread pads
      // its window once) fused into each.
      %root_1 = transform.structured.match attributes{int21.root} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %root_r, %r_n, %r_fb, %r_h, %r_w = transform.structured.tile_using_for %root_1 tile_sizes [1, %reg_fb, 0, 1, %reg_w]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      %inner = transform.structured.match interface{LinalgOp} attributes{int21.fuse} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %fused_r, %r_w_1 = transform.structured.fuse_into_containing_op %inner into %r_w
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      %conv = transform.structured.match attributes{int21.anchor} in %r_w_1 : (!transform.any_op) -> !transform.any_op
      %conv_k, %l_c, %l_kh, %l_kw = transform.structured.tile_using_for %conv tile_sizes [0, 0, 0, 0, 0, 1, 1, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      %step = transform.structured.interchange %conv_k iterator_interchange = [0, 3, 4, 1, 2, 5, 6, 7]
        : (!transform.any_op) -> !transform.any_op
      transform.include @cpu.peel failures(propagate) (%r_w_1) : (!transform.any_op) -> ()
      transform.include @cpu.peel failures(propagate) (%r_fb) : (!transform.any_op) -> ()
    }

    transform.include @cpu.filter_lanes_vectors failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.yield
  }

  // The register tiles of a filter-lanes convolution vectorized: unit
  // dimensions folded, the padding written as borders and an interior, each
  // step vectorized (reg_w broadcast inputs times reg_fb weight vectors as
  // FMAs), the accumulators hoisted out of the reduction and transposed
  // into the output rows once a tile.
  transform.named_sequence @cpu.filter_lanes_vectors(%group: !transform.any_op {transform.readonly}) {
    transform.apply_patterns to %group {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_patterns to %group {
      transform.apply_patterns.int21.rank_expanding_inserts
    } : !transform.any_op
    transform.apply_patterns to %group {
      transform.apply_patterns.int21.pad_borders
    } : !transform.any_op
    transform.apply_patterns to %group {
      transform.apply_patterns.int21.strided_windows
    } : !transform.any_op
    %steps = transform.structured.match interface{LinalgOp} in %group : (!transform.any_op) -> !transform.any_op
    transform.foreach %steps : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.sequence %op : !transform.any_op failures(suppress) {
      ^bb1(%o: !transform.any_op):
        transform.structured.vectorize %o : !transform.any_op
      }
    }
    transform.apply_patterns to %group {
      transform.apply_patterns.int21.strided_windows
      transform.apply_patterns.int21.multiply_add_to_fma
      transform.apply_patterns.int21.scalar_reads
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %group : !transform.any_op
    // The accumulators (a transposed read and write of the output tile)
    // hoisted out of the loops over the channels and the window before the
    // transfers are lowered, so that they are transposed once a tile.
    transform.include @cpu.hoist_accumulators failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.apply_patterns to %group {
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.int21.scalar_reads
      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %group : !transform.any_op
    // The accumulators' transposes, once a tile: a 2-D one as shuffles of
    // whole registers, the blocked 3-D ones ([reg_w, reg_fb, 16]) element by
    // element (shuffle_1d takes 2-D transposes only).
    transform.apply_patterns to %group {
      transform.apply_patterns.vector.lower_transpose lowering_strategy = "shuffle_1d"
    } : !transform.any_op
    transform.yield
  }

  // The filter-lanes convolution of a dynamic group, whose output rows and
  // columns only a run knows: @cpu.conv2d_filter_lanes with its epilogue in
  // passes of its own (epilogue_regs = 0), but the register tiles'
  // parallel dimensions tiled before the reduction, so that the columns a
  // row has beyond its last full register tile (peeled) are tiled one by one
  // outside the loops over the channels and the window: each a register
  // tile of one column, its accumulators in registers across the reduction
  // as a full tile's are. Knobs as @cpu.conv2d_filter_lanes.
  transform.named_sequence @cpu.conv2d_filter_lanes_dynamic(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %par_fb = transform.tune.knob<"par_fb"> options = [1, 2, 4, 8, 16] -> !transform.param<i64>
    %par_h = transform.tune.knob<"par_h"> options = [1, 2, 4, 7, 8, 14, 28, 56] -> !transform.param<i64>
    %reg_fb = transform.tune.knob<"reg_fb"> options = [1, 2, 3, 4] -> !transform.param<i64>
    %reg_w = transform.tune.knob<"reg_w"> options = [4, 6, 7, 8, 12, 14, 16] -> !transform.param<i64>
    %ew_vec = transform.tune.knob<"ew_vec"> options = [8, 16, 32, 64] -> !transform.param<i64>

    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [1, %par_fb, 0, %par_h]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)

    %conv = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
    %conv_p, %l_n, %l_fb, %l_h, %l_w = transform.structured.tile_using_for %conv tile_sizes [1, %reg_fb, 0, 1, %reg_w]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    // (The remainder of a row tiled by one column, by @cpu.peel.)
    transform.include @cpu.peel failures(propagate) (%l_w) : (!transform.any_op) -> ()
    transform.include @cpu.peel failures(propagate) (%l_fb) : (!transform.any_op) -> ()
    // The reduction of every register tile, full or a remainder's: (n, oh,
    // ow, fb, fi, ...), the filters last, along the vectors.
    %tiles = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
    transform.foreach %tiles : !transform.any_op {
    ^bb0(%tile: !transform.any_op):
      %step, %l_c, %l_kh, %l_kw = transform.structured.tile_using_for %tile tile_sizes [0, 0, 0, 0, 0, 1, 1, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      %interchanged = transform.structured.interchange %step iterator_interchange = [0, 3, 4, 1, 2, 5, 6, 7]
        : (!transform.any_op) -> !transform.any_op
    }

    %ew = transform.structured.match attributes{int21.ew} in %forall_1 : (!transform.any_op) -> !transform.any_op
    transform.foreach %ew : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %op_r, %e0, %e1, %e2, %e3, %e4 = transform.structured.tile_using_for %op tile_sizes [1, 1, 1, 1, %ew_vec]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @cpu.peel failures(propagate) (%e4) : (!transform.any_op) -> ()
    }
    transform.include @cpu.filter_lanes_vectors failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.yield
  }

  transform.named_sequence @cpu.conv2d_nchw(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %direct = transform.tune.knob<"direct"> options = [0, 1] -> !transform.param<i64>
    %ew_vec = transform.tune.knob<"ew_vec"> options = [8, 16, 32, 64] -> !transform.param<i64>
    transform.tune.alternatives<"direct"> selected_region = %direct : !transform.param<i64> {
      %par_m = transform.tune.knob<"par_m"> options = [8, 16, 32, 64, 128] -> !transform.param<i64>
      %par_n = transform.tune.knob<"par_n"> options = [32, 64, 128, 224, 256, 512] -> !transform.param<i64>
      %cache_k = transform.tune.knob<"cache_k"> options = [64, 128, 192, 256, 512] -> !transform.param<i64>
      %reg_m = transform.tune.knob<"reg_m"> options = [1, 2, 4, 6, 8] -> !transform.param<i64>
      %reg_n = transform.tune.knob<"reg_n"> options = [8, 16, 32, 48, 64] -> !transform.param<i64>
      %ew_par_c = transform.tune.knob<"ew_par_c"> options = [1, 4, 8, 16, 32] -> !transform.param<i64>

      %conv = transform.structured.match attributes{int21.anchor} in %group : (!transform.any_op) -> !transform.any_op
      %col, %result = transform.structured.convert_conv2d_to_img2col %conv : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %mm = transform.get_producer_of_operand %result[0] : (!transform.any_op) -> !transform.any_op
      transform.annotate %mm "int21.anchor" : !transform.any_op
      %mm_t, %forall = transform.structured.tile_using_forall %mm tile_sizes [1, %par_m, %par_n]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %col_t, %forall_1 = transform.structured.fuse_into_containing_op %col into %forall
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      // The im2col copy in pieces of col_w pixels of one output row (a
      // divisor of the row): over such a piece its map is a strided slice
      // of the input, so that it is read as a vector (contiguous at stride
      // 1, a span and a shuffle at stride 2) rather than element by element
      // with the map's divisions.
      %col_w = transform.tune.knob<"col_w"> options = [7, 8, 14, 16, 28, 32, 56] -> !transform.param<i64>
      transform.annotate %col_t "int21.im2col" : !transform.any_op
      %col_r, %lc_b, %lc_k, %lc_p = transform.structured.tile_using_for %col_t tile_sizes [1, 1, %col_w]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.apply_patterns to %forall_1 {
        transform.apply_patterns.int21.box_affine_maps
      } : !transform.any_op
      %cols = transform.structured.match attributes{int21.im2col} in %forall_1 : (!transform.any_op) -> !transform.any_op
      transform.foreach %cols : !transform.any_op {
      ^bb0(%op: !transform.any_op):
        transform.sequence %op : !transform.any_op failures(suppress) {
        ^bb1(%o: !transform.any_op):
          transform.structured.vectorize %o : !transform.any_op
        }
      }
      transform.apply_patterns to %forall_1 {
        transform.apply_patterns.int21.strided_windows
      } : !transform.any_op
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
    }, {
      %par_f = transform.tune.knob<"par_f"> options = [1, 2, 4, 8, 16, 32, 64] -> !transform.param<i64>
      %par_h = transform.tune.knob<"par_h"> options = [1, 2, 4, 7, 8, 14, 16, 28, 56, 112] -> !transform.param<i64>
      %reg_f = transform.tune.knob<"reg_f"> options = [1, 2, 4, 8, 16] -> !transform.param<i64>
      %reg_h = transform.tune.knob<"reg_h"> options = [1, 2, 3, 4, 6, 7, 8] -> !transform.param<i64>
      %reg_w = transform.tune.knob<"reg_w"> options = [8, 16, 24, 28, 32, 48, 64] -> !transform.param<i64>

      // The generic form of the convolution, whose unit dimensions the
      // window vectorization folds away; it keeps the anchor's tags.
      %named = transform.structured.match attributes{int21.anchor} in %group : (!transform.any_op) -> !transform.any_op
      %generic = transform.int21.generalize %named : (!transform.any_op) -> !transform.any_op
      %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
      %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
      %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [1, %par_f, %par_h]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)

      %conv = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %conv_r, %l_n, %l_f, %l_h, %l_w, %l_c, %l_kh, %l_kw = transform.structured.tile_using_for %conv tile_sizes [1, %reg_f, %reg_h, %reg_w, 1, 1, 1]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      // One filter a step, the reg_f steps unrolled (see
      // @cpu.grouped_conv2d_nchw).
      %step, %l_f1 = transform.structured.tile_using_for %conv_r tile_sizes [0, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.int21.loop.full_unroll %l_f1 : !transform.any_op
      transform.include @cpu.peel failures(propagate) (%l_w) : (!transform.any_op) -> ()
      transform.include @cpu.peel failures(propagate) (%l_h) : (!transform.any_op) -> ()
      transform.include @cpu.peel failures(propagate) (%l_f) : (!transform.any_op) -> ()

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
    transform.yield
  }
}
