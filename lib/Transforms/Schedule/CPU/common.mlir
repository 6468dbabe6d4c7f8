// Shared steps of the CPU schedule templates: the vector cleanup and lowering
// that every vectorized kernel needs.
module attributes {transform.with_named_sequence} {
  // Folds the vectorized tiles into register-resident form: contractions from
  // vectorized matmuls, accumulators hoisted out of their reduction loops,
  // contractions lowered to broadcast-FMA outer products.
  transform.named_sequence @cpu.lower_vectors(%scope: !transform.any_op {transform.readonly}) {
    transform.apply_patterns to %scope {
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %scope : !transform.any_op
    transform.include @cpu.hoist_accumulators failures(propagate) (%scope) : (!transform.any_op) -> ()
    transform.apply_patterns to %scope {
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.int21.scalar_reads
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
      transform.apply_patterns.int21.scalar_reads
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %scope : !transform.any_op
    transform.yield
  }

  // Hoists the accumulators of the loops in %scope (a read and write of the
  // same tile) out of them, so that they stay in registers across the loop.
  // Twice: first the tensor slice of the accumulator, then the vector
  // transfers on that slice. The scope (a fusion group) is not isolated
  // from above, so the patterns leave the constants they create (the
  // transfers' padding, say) inside the loops: move them out first, or the
  // transfers do not count as loop invariant.
  transform.named_sequence @cpu.hoist_accumulators(%scope: !transform.any_op {transform.readonly}) {
    %loops = transform.structured.match ops{["scf.for"]} in %scope : (!transform.any_op) -> !transform.any_op
    transform.foreach %loops : !transform.any_op {
    ^bb0(%loop: !transform.any_op):
      transform.apply_licm to %loop : !transform.any_op
      transform.int21.loop.hoist_subsets %loop : !transform.any_op
    }
    %loops_1 = transform.structured.match ops{["scf.for"]} in %scope : (!transform.any_op) -> !transform.any_op
    transform.foreach %loops_1 : !transform.any_op {
    ^bb0(%loop: !transform.any_op):
      transform.apply_licm to %loop : !transform.any_op
      transform.int21.loop.hoist_subsets %loop : !transform.any_op
    }
    transform.yield
  }

  // Splits a tile loop whose step does not divide its trip range into a loop
  // of full tiles and a remainder, so that the full tiles get static shapes
  // and vectorize without masks. A loop that cannot be peeled stays as it is.
  // A remainder over a dynamic extent (of unknown size) is tiled by one
  // there, so that it too has static shapes.
  transform.named_sequence @cpu.peel(%loop: !transform.any_op {transform.readonly}) {
    transform.sequence %loop : !transform.any_op failures(suppress) {
    ^bb0(%l: !transform.any_op):
      %for = transform.cast %l : !transform.any_op to !transform.op<"scf.for">
      %main, %rest = transform.loop.peel %for : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
      // Over a dynamic extent, the remainder one step at a time.
      transform.int21.tile_dynamic_by_one %rest : !transform.any_op
    }
    transform.yield
  }

  // @cpu.peel for the loop along the vectors of register tiles that start
  // from the bias (or zeros) and leave through the epilogue: a remainder
  // over a dynamic extent runs as one whole tile overlapping the last full
  // one where the extent holds a whole tile (its columns along the vectors,
  // not one at a time), and is tiled by one otherwise.
  transform.named_sequence @cpu.peel_overlap(%loop: !transform.any_op {transform.readonly}) {
    transform.sequence %loop : !transform.any_op failures(suppress) {
    ^bb0(%l: !transform.any_op):
      %for = transform.cast %l : !transform.any_op to !transform.op<"scf.for">
      %main, %rest = transform.loop.peel %for : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
      transform.int21.loop.overlap_remainder %rest after %main : !transform.any_op, !transform.any_op
      transform.int21.tile_dynamic_by_one %rest : !transform.any_op
    }
    transform.yield
  }

  // Splits a tile loop whose step does not divide its trip range into a loop
  // of full tiles and a remainder, and nothing more: the remainder's tiles
  // are left for the template (int21.pad_dynamic_tile pads them to whole
  // ones). A loop that cannot be peeled stays as it is.
  transform.named_sequence @cpu.peel_only(%loop: !transform.any_op {transform.readonly}) {
    transform.sequence %loop : !transform.any_op failures(suppress) {
    ^bb0(%l: !transform.any_op):
      %for = transform.cast %l : !transform.any_op to !transform.op<"scf.for">
      %main, %rest = transform.loop.peel %for : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    }
    transform.yield
  }

  // The remainders of a product's register tiles over dynamic extents, once
  // canonicalized: where @cpu.peel left a tile partial along a dynamic
  // extent and full along others, which only canonicalization makes static
  // (the rows past the last full tile of a loop over full columns: a
  // classifier head of one row, in tiles of 8), it is tiled by one along
  // the dynamic extent so that it vectorizes along the others.
  transform.named_sequence @cpu.tile_remainders(%scope: !transform.any_op {transform.readonly}) {
    transform.apply_patterns to %scope {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %threads = transform.structured.match ops{["scf.forall"]} in %scope : (!transform.any_op) -> !transform.any_op
    transform.int21.tile_dynamic_by_one %threads : !transform.any_op
    transform.yield
  }

  // Vectorizes each tagged op (anchor or elementwise) in %scope that has
  // static shapes; the others (partial tiles left by peeling) stay scalar and
  // are lowered to loops later.
  transform.named_sequence @cpu.vectorize_static(%scope: !transform.any_op {transform.readonly}) {
    transform.apply_patterns to %scope {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %anchors = transform.structured.match attributes{int21.anchor} in %scope : (!transform.any_op) -> !transform.any_op
    %elementwise = transform.structured.match attributes{int21.ew} in %scope : (!transform.any_op) -> !transform.any_op
    %ops = transform.merge_handles %anchors, %elementwise : !transform.any_op
    transform.foreach %ops : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.sequence %op : !transform.any_op failures(suppress) {
      ^bb1(%o: !transform.any_op):
        transform.structured.vectorize %o : !transform.any_op
      }
    }
    transform.yield
  }

  // Vectorizes the register tiles of a window op (depthwise or grouped
  // convolution) tiled to unit window steps: a step of a register tile has
  // unit batch, group, channel and window dimensions; folded away, it reads
  // a box of the input and is elementwise (or an outer product with the
  // filters of the tile); with a stride, the box is a strided slice, read as
  // the contiguous span it lies in and shuffled. Multiply-adds become
  // vector.fma, and the vectors are lowered.
  transform.named_sequence @cpu.vectorize_windows(%scope: !transform.any_op {transform.readonly}) {
    transform.apply_patterns to %scope {
      transform.apply_patterns.linalg.tiling_canonicalization
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    // The padding, rank-reduced by the same folding, is written back into a
    // tensor of the full rank as a view, not copied; its border is filled
    // once and its interior copied once (not the whole tile filled first).
    transform.apply_patterns to %scope {
      transform.apply_patterns.int21.rank_expanding_inserts
    } : !transform.any_op
    transform.apply_patterns to %scope {
      transform.apply_patterns.int21.pad_borders
    } : !transform.any_op
    transform.apply_patterns to %scope {
      transform.apply_patterns.int21.strided_windows
    } : !transform.any_op
    %steps = transform.structured.match interface{LinalgOp} in %scope : (!transform.any_op) -> !transform.any_op
    transform.foreach %steps : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.sequence %op : !transform.any_op failures(suppress) {
      ^bb1(%o: !transform.any_op):
        transform.structured.vectorize %o : !transform.any_op
      }
    }
    transform.apply_patterns to %scope {
      transform.apply_patterns.int21.strided_windows
      transform.apply_patterns.int21.multiply_add_to_fma
      transform.apply_patterns.int21.scalar_reads
    } : !transform.any_op
    transform.include @cpu.lower_vectors failures(propagate) (%scope) : (!transform.any_op) -> ()
    transform.yield
  }
}
