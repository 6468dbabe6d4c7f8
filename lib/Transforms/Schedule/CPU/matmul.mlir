// CPU schedules for matmul-like fusion groups: the anchor (linalg.matmul,
// linalg.batch_matmul) and its elementwise producers/consumers (fill, bias,
// activation) are tiled together into threads (scf.forall), the anchor is
// tiled for the cache over K and into a register tile; register tile loops
// are peeled so that full tiles have static shapes, and those are vectorized
// (the register tile becomes broadcast-FMA outer products).
//
// Payload ops are found by the tags int21-cpu-schedule puts on them:
// int21.root (the op whose result leaves the group), int21.anchor,
// int21.fuse (to fuse into the thread tiles), int21.ew (elementwise ops),
// int21.pack (an input the group lays out anew for its anchor, see
// @cpu.depthwise_channel_lanes).
// Knobs: par_* thread tile, cache_k K tile, reg_* register tile (reg_k > 1
// unrolls the K loop into reg_k outer products per step), pack_b and cache_n
// copy panels of B into contiguous buffers (see @cpu.matmul_cache_tiles);
// epilogue_regs selects register tiles that hold the accumulators from the
// bias through the epilogue over the whole of K (cache_k, pack_b and cache_n
// then unused).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @cpu.matmul(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %par_m = transform.tune.knob<"par_m"> options = [8, 16, 32, 64, 128] -> !transform.param<i64>
    %par_n = transform.tune.knob<"par_n"> options = [32, 64, 128, 256, 512] -> !transform.param<i64>
    %cache_k = transform.tune.knob<"cache_k"> options = [64, 128, 256, 512] -> !transform.param<i64>
    %reg_m = transform.tune.knob<"reg_m"> options = [1, 2, 4, 6, 8] -> !transform.param<i64>
    %reg_n = transform.tune.knob<"reg_n"> options = [8, 16, 32, 48, 64] -> !transform.param<i64>
    %reg_k = transform.tune.knob<"reg_k"> = 1 from options = [1, 2, 4] -> !transform.param<i64>

    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [%par_m, %par_n]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)

    // epilogue_regs = 0: the thread tile's matmul in cache tiles over K and
    // register tiles, its bias and epilogue in passes of their own over the
    // thread tile. 1: register tiles of the root, each with the matmul over
    // the whole of K, its bias and the ops between fused into it: the
    // accumulators start from the bias and leave through the epilogue in
    // registers, one store a tile (pointwise convolutions: K of 16 to 320,
    // where four passes over the output tile cost as much as the products).
    %regs = transform.tune.knob<"epilogue_regs"> = 0 from options = [0, 1] -> !transform.param<i64>
    transform.tune.alternatives<"epilogue_regs"> selected_region = %regs : !transform.param<i64> {
      %mm = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %mm_k = transform.include @cpu.matmul_cache_tiles failures(propagate) (%mm, %cache_k)
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
      // The register tiles, peeled; the remainders over a dynamic extent
      // (rows past the last full tile) one at a time once canonicalized,
      // then the steps over K: the rows' loop runs outside K, so that their
      // accumulators stay in registers across it (a classifier head over a
      // dynamic batch read and wrote them at every step: 0.36 ms at batch 1,
      // the static head 0.11).
      %mm_r, %loop_rm, %loop_rn = transform.structured.tile_using_for %mm_k tile_sizes [%reg_m, %reg_n, 0]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @cpu.peel_only failures(propagate) (%loop_rn) : (!transform.any_op) -> ()
      transform.include @cpu.peel_only failures(propagate) (%loop_rm) : (!transform.any_op) -> ()
      transform.include @cpu.tile_remainders failures(propagate) (%group) : (!transform.any_op) -> ()
      // Matched in the group: the canonicalization folds a thread loop of
      // one iteration (a thread tile holding the whole output) away.
      %mm_tiles = transform.structured.match attributes{int21.anchor} in %group : (!transform.any_op) -> !transform.any_op
      transform.foreach %mm_tiles : !transform.any_op {
      ^bb0(%tile: !transform.any_op):
        %tile_k, %loop_rk = transform.structured.tile_using_for %tile tile_sizes [0, 0, %reg_k]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      }

      %ew = transform.structured.match attributes{int21.ew} in %group : (!transform.any_op) -> !transform.any_op
      transform.foreach %ew : !transform.any_op {
      ^bb0(%op: !transform.any_op):
        %op_r, %loop_em, %loop_en = transform.structured.tile_using_for %op tile_sizes [%reg_m, %reg_n]
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op)
        transform.include @cpu.peel failures(propagate) (%loop_en) : (!transform.any_op) -> ()
        transform.include @cpu.peel failures(propagate) (%loop_em) : (!transform.any_op) -> ()
      }

    }, {
      // Producers fused greedily, through the loops' iter_args too (the
      // fill or bias a matmul without epilogue starts from); the thread
      // tile's own ops stay behind, dead, until canonicalized.
      %root_1 = transform.structured.match attributes{int21.root} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %root_r, %loop_m, %loop_n = transform.structured.fuse %root_1 tile_sizes [%reg_m, %reg_n]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      %mm_1 = transform.structured.match attributes{int21.anchor} in %loop_n : (!transform.any_op) -> !transform.any_op
      %mm_rk, %loop_k = transform.structured.tile_using_for %mm_1 tile_sizes [0, 0, %reg_k]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      transform.include @cpu.peel_overlap failures(propagate) (%loop_n) : (!transform.any_op) -> ()
      transform.include @cpu.peel failures(propagate) (%loop_m) : (!transform.any_op) -> ()
    }
    transform.include @cpu.tile_remainders failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.include @cpu.vectorize_static failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.include @cpu.lower_vectors failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.yield
  }

  // A matmul computed transposed, C^T[p, f] = A[k, p]^T x B[k, f], then
  // transposed back into the group's [f, p] (a pointwise convolution whose
  // pixels fill the vectors badly, see LowerToLinalg/NN.cpp): the root (the
  // epilogue over [f, p], or the transpose) is tiled into threads of
  // par_f x par_p and register tiles of reg_f x reg_p, the matmul, its bias
  // and the transpose fused into each register tile, so that the
  // accumulators (reg_p rows of reg_f filters, along the vectors) start from
  // the bias, are transposed in registers and leave through the epilogue,
  // stored once. Knobs: par_f, par_p thread tile; reg_f, reg_p register
  // tile; reg_k as in @cpu.matmul.
  transform.named_sequence @cpu.matmul_transposed(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %par_f = transform.tune.knob<"par_f"> options = [16, 32, 64, 128, 256] -> !transform.param<i64>
    %par_p = transform.tune.knob<"par_p"> options = [8, 16, 32, 49, 64, 128] -> !transform.param<i64>
    %reg_f = transform.tune.knob<"reg_f"> options = [16, 32, 64] -> !transform.param<i64>
    %reg_p = transform.tune.knob<"reg_p"> options = [1, 2, 4, 6, 7, 8] -> !transform.param<i64>
    %reg_k = transform.tune.knob<"reg_k"> = 1 from options = [1, 2, 4] -> !transform.param<i64>

    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [%par_f, %par_p]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %root_1 = transform.structured.match attributes{int21.root} in %forall_1 : (!transform.any_op) -> !transform.any_op
    %root_r, %loop_f, %loop_p = transform.structured.fuse %root_1 tile_sizes [%reg_f, %reg_p]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %mm = transform.structured.match attributes{int21.anchor} in %loop_p : (!transform.any_op) -> !transform.any_op
    %mm_k, %loop_k = transform.structured.tile_using_for %mm tile_sizes [0, 0, %reg_k]
      : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    transform.include @cpu.peel failures(propagate) (%loop_p) : (!transform.any_op) -> ()
    transform.include @cpu.peel failures(propagate) (%loop_f) : (!transform.any_op) -> ()
    transform.include @cpu.vectorize_static failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.include @cpu.lower_vectors failures(propagate) (%group) : (!transform.any_op) -> ()
    // The accumulators' transpose as shuffles of whole registers.
    transform.apply_patterns to %group {
      transform.apply_patterns.vector.lower_transpose lowering_strategy = "shuffle_1d"
    } : !transform.any_op
    transform.yield
  }

  // The same with a leading batch dimension (linalg.batch_matmul).
  transform.named_sequence @cpu.batch_matmul(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %par_m = transform.tune.knob<"par_m"> options = [8, 16, 32, 64, 128] -> !transform.param<i64>
    %par_n = transform.tune.knob<"par_n"> options = [32, 64, 128, 256, 512] -> !transform.param<i64>
    %cache_k = transform.tune.knob<"cache_k"> options = [64, 128, 256, 512] -> !transform.param<i64>
    %reg_m = transform.tune.knob<"reg_m"> options = [1, 2, 4, 6, 8] -> !transform.param<i64>
    %reg_n = transform.tune.knob<"reg_n"> options = [8, 16, 32, 48, 64] -> !transform.param<i64>
    %reg_k = transform.tune.knob<"reg_k"> = 1 from options = [1, 2, 4] -> !transform.param<i64>

    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [1, %par_m, %par_n]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)

    // epilogue_regs as in @cpu.matmul.
    %regs = transform.tune.knob<"epilogue_regs"> = 0 from options = [0, 1] -> !transform.param<i64>
    transform.tune.alternatives<"epilogue_regs"> selected_region = %regs : !transform.param<i64> {
      %mm = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %mm_k = transform.include @cpu.batch_matmul_cache_tiles failures(propagate) (%mm, %cache_k)
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
      // (The register tiles' remainders over a dynamic extent outside the
      // steps over K, as in @cpu.matmul.)
      %mm_r, %loop_rb, %loop_rm, %loop_rn = transform.structured.tile_using_for %mm_k tile_sizes [1, %reg_m, %reg_n, 0]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.include @cpu.peel_only failures(propagate) (%loop_rn) : (!transform.any_op) -> ()
      transform.include @cpu.peel_only failures(propagate) (%loop_rm) : (!transform.any_op) -> ()
      transform.include @cpu.tile_remainders failures(propagate) (%group) : (!transform.any_op) -> ()
      // Matched in the group: the canonicalization folds a thread loop of
      // one iteration (a thread tile holding the whole output) away.
      %mm_tiles = transform.structured.match attributes{int21.anchor} in %group : (!transform.any_op) -> !transform.any_op
      transform.foreach %mm_tiles : !transform.any_op {
      ^bb0(%tile: !transform.any_op):
        %tile_k, %loop_rk = transform.structured.tile_using_for %tile tile_sizes [0, 0, 0, %reg_k]
          : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      }

      %ew = transform.structured.match attributes{int21.ew} in %group : (!transform.any_op) -> !transform.any_op
      transform.foreach %ew : !transform.any_op {
      ^bb0(%op: !transform.any_op):
        %op_r, %loop_eb, %loop_em, %loop_en = transform.structured.tile_using_for %op tile_sizes [1, %reg_m, %reg_n]
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
        transform.include @cpu.peel failures(propagate) (%loop_en) : (!transform.any_op) -> ()
        transform.include @cpu.peel failures(propagate) (%loop_em) : (!transform.any_op) -> ()
      }

    }, {
      %root_1 = transform.structured.match attributes{int21.root} in %forall_1 : (!transform.any_op) -> !transform.any_op
      %root_r, %loop_b, %loop_m, %loop_n = transform.structured.fuse %root_1 tile_sizes [1, %reg_m, %reg_n]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      %mm_1 = transform.structured.match attributes{int21.anchor} in %loop_n : (!transform.any_op) -> !transform.any_op
      %mm_rk, %loop_k = transform.structured.tile_using_for %mm_1 tile_sizes [0, 0, 0, %reg_k]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      transform.include @cpu.peel_overlap failures(propagate) (%loop_n) : (!transform.any_op) -> ()
      transform.include @cpu.peel failures(propagate) (%loop_m) : (!transform.any_op) -> ()
    }
    transform.include @cpu.tile_remainders failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.include @cpu.vectorize_static failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.include @cpu.lower_vectors failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.yield
  }

  // The cache tiles of a matmul's thread tile: over K, and with pack_b = 1
  // first over N too (cache_n columns), the [cache_k, cache_n] slice of B
  // that such a tile reads being copied into a buffer of its own. B's rows
  // are a whole matrix row apart (4 KiB for N = 1024), so the slice that the
  // register tiles sweep falls into a few cache sets and is evicted from L1
  // before it is reused; the copy is contiguous and stays in L1 across all
  // the rows of A in the thread tile, which pays for the copy when there are
  // many of them (CPU/Rules.cpp decides).
  //
  // pack_b is a knob that selects the alternative, under the same name: its
  // default then comes from the shape like any knob's, the search sees one
  // dimension, and --schedule-knobs or a group's schedule set it as a knob.
  // %mm is consumed by the tiling in either region; it is declared readonly
  // because the verifier does not look into the alternatives' regions.
  transform.named_sequence @cpu.matmul_cache_tiles(
      %mm: !transform.any_op {transform.readonly},
      %cache_k: !transform.param<i64> {transform.readonly}) -> !transform.any_op {
    %pack_b = transform.tune.knob<"pack_b"> = 0 from options = [0, 1] -> !transform.param<i64>
    %tiled = transform.tune.alternatives<"pack_b"> selected_region = %pack_b : !transform.param<i64> -> !transform.any_op {
      %mm_k, %loop_k = transform.structured.tile_using_for %mm tile_sizes [0, 0, %cache_k]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      transform.yield %mm_k : !transform.any_op
    }, {
      %cache_n = transform.tune.knob<"cache_n"> = 32 from options = [16, 32, 64, 128, 256] -> !transform.param<i64>
      %mm_nk, %loop_n, %loop_k = transform.structured.tile_using_for %mm tile_sizes [0, %cache_n, %cache_k]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      // The panel copy of @cpu.matmul_cache_tiles.
      %b = transform.get_operand %mm_nk[1] : (!transform.any_op) -> !transform.any_value
      %packed = transform.structured.promote_tensor %b : !transform.any_value
      transform.yield %mm_nk : !transform.any_op
    }
    transform.yield %tiled : !transform.any_op
  }

  // The same for linalg.batch_matmul (whose thread tiles hold one batch).
  transform.named_sequence @cpu.batch_matmul_cache_tiles(
      %mm: !transform.any_op {transform.readonly},
      %cache_k: !transform.param<i64> {transform.readonly}) -> !transform.any_op {
    %pack_b = transform.tune.knob<"pack_b"> = 0 from options = [0, 1] -> !transform.param<i64>
    %tiled = transform.tune.alternatives<"pack_b"> selected_region = %pack_b : !transform.param<i64> -> !transform.any_op {
      %mm_k, %loop_k = transform.structured.tile_using_for %mm tile_sizes [0, 0, 0, %cache_k]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
      transform.yield %mm_k : !transform.any_op
    }, {
      %cache_n = transform.tune.knob<"cache_n"> = 32 from options = [16, 32, 64, 128, 256] -> !transform.param<i64>
      %mm_nk, %loop_n, %loop_k = transform.structured.tile_using_for %mm tile_sizes [0, 0, %cache_n, %cache_k]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      // The copy is an allocation that the slice is materialized in (a
      // strided buffer copy once bufferized); unlike a nofold pad it leaves
      // the matmul's result alone, which bufferizes in place also when the
      // thread tile is partial.
      %b = transform.get_operand %mm_nk[1] : (!transform.any_op) -> !transform.any_value
      %packed = transform.structured.promote_tensor %b : !transform.any_value
      transform.yield %mm_nk : !transform.any_op
    }
    transform.yield %tiled : !transform.any_op
  }

  // A product with its constant right operand in panels of 16 columns
  // ([N/16, K, 16]; see LowerToLinalg/Structured.cpp), over the loops (m, nb,
  // ni, k): the root (the epilogue over [M, N/16, 16], or the product) is
  // tiled into threads of par_m rows x par_nb panels, then into register
  // tiles of reg_m rows x reg_nb panels (panels outermost, so that a
  // thread's rows reuse a panel while it is in cache), the product, the
  // zeros it starts from and the epilogue fused into each. The accumulators
  // start and stay in registers over the whole of K; a step reads reg_nb
  // consecutive vectors of the panels and broadcasts reg_m elements of A;
  // the epilogue runs on the accumulators before their one store.
  // Knobs: par_m, par_nb thread tile; reg_m, reg_nb register tile.
  transform.named_sequence @cpu.matmul_panels(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %par_m = transform.tune.knob<"par_m"> options = [8, 16, 32, 64, 128, 256] -> !transform.param<i64>
    %par_nb = transform.tune.knob<"par_nb"> options = [1, 2, 4, 8, 16, 32] -> !transform.param<i64>
    %reg_m = transform.tune.knob<"reg_m"> options = [1, 2, 4, 6, 7, 8, 10, 12, 14] -> !transform.param<i64>
    %reg_nb = transform.tune.knob<"reg_nb"> options = [1, 2, 3, 4] -> !transform.param<i64>

    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [%par_m, %par_nb]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)

    // Register tiles of the root, the producers fused greedily (through the
    // loops' iter_args too: the zeros the product starts from).
    %root_1 = transform.structured.match attributes{int21.root} in %forall_1 : (!transform.any_op) -> !transform.any_op
    %root_r, %loop_nb, %loop_m = transform.structured.fuse %root_1 tile_sizes [%reg_m, %reg_nb] interchange [1, 0]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %mm = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
    %mm_k, %loop_k = transform.structured.tile_using_for %mm tile_sizes [0, 0, 0, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @cpu.peel failures(propagate) (%loop_m) : (!transform.any_op) -> ()
    transform.include @cpu.peel failures(propagate) (%loop_nb) : (!transform.any_op) -> ()

    transform.apply_patterns to %group {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
      transform.apply_patterns.canonicalization
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
      transform.apply_patterns.int21.multiply_add_to_fma
      transform.apply_patterns.int21.scalar_reads
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %group : !transform.any_op
    transform.include @cpu.hoist_accumulators failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.apply_patterns to %group {
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.int21.scalar_reads
      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %group : !transform.any_op
    transform.yield
  }

  // The transposed product of a pointwise convolution with its constant
  // weight in panels of 16 filters ([P, F/16, 16] = A[k, p]^T x panels,
  // transposed back to the group's [F/16, 16, P]; see LowerToLinalg/NN.cpp):
  // the root (the epilogue over [F/16, 16, P], or the transpose) is tiled
  // into threads of par_nb panels x par_p pixels and register tiles of
  // reg_nb panels x reg_p pixels, the product, the bias it starts from and
  // the transpose fused into each: the accumulators (reg_p pixels of reg_nb
  // x 16 filters, along the vectors) start from the bias, take the whole of
  // K reading consecutive vectors of the panels, are transposed in
  // registers and leave through the epilogue, stored once.
  // Knobs: par_nb, par_p thread tile; reg_nb, reg_p register tile.
  transform.named_sequence @cpu.matmul_panels_transposed(%group: !transform.any_op {transform.readonly}) attributes {int21.schedule_template} {
    %par_nb = transform.tune.knob<"par_nb"> options = [1, 2, 4, 8, 16, 32] -> !transform.param<i64>
    %par_p = transform.tune.knob<"par_p"> options = [8, 16, 32, 49, 64, 128] -> !transform.param<i64>
    %reg_nb = transform.tune.knob<"reg_nb"> options = [1, 2, 3, 4] -> !transform.param<i64>
    %reg_p = transform.tune.knob<"reg_p"> options = [1, 2, 4, 6, 7, 8, 10, 12, 14] -> !transform.param<i64>

    %root = transform.structured.match attributes{int21.root} in %group : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match attributes{int21.fuse} in %group : (!transform.any_op) -> !transform.any_op
    %tiled_root, %forall = transform.structured.tile_using_forall %root tile_sizes [%par_nb, 0, %par_p]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %fused, %forall_1 = transform.structured.fuse_into_containing_op %producers into %forall
      : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %root_1 = transform.structured.match attributes{int21.root} in %forall_1 : (!transform.any_op) -> !transform.any_op
    %root_r, %loop_nb, %loop_p = transform.structured.fuse %root_1 tile_sizes [%reg_nb, 0, %reg_p]
      : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %mm = transform.structured.match attributes{int21.anchor} in %forall_1 : (!transform.any_op) -> !transform.any_op
    %mm_k, %loop_k = transform.structured.tile_using_for %mm tile_sizes [0, 0, 0, 1]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @cpu.peel failures(propagate) (%loop_p) : (!transform.any_op) -> ()
    transform.include @cpu.peel failures(propagate) (%loop_nb) : (!transform.any_op) -> ()

    transform.apply_patterns to %group {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
      transform.apply_patterns.canonicalization
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
      transform.apply_patterns.int21.multiply_add_to_fma
      transform.apply_patterns.int21.scalar_reads
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %group : !transform.any_op
    transform.include @cpu.hoist_accumulators failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.apply_patterns to %group {
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.int21.scalar_reads
      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %group : !transform.any_op
    // The accumulators' transpose: a 2-D one (one panel) as shuffles of
    // whole registers, the 3-D ones element by element.
    transform.apply_patterns to %group {
      transform.apply_patterns.vector.lower_transpose lowering_strategy = "shuffle_1d"
    } : !transform.any_op
    transform.yield
  }
}
