//===- DefaultKnobs.h - default knob values of the CPU schedules ----------===//
//
// One function per schedule template class computes that template's knob
// values from the payload's static shape. The values are correct for any
// shape (tiles that do not divide a dimension are masked when vectorized) and
// chosen to divide the dimensions where they can, so that full tiles need no
// masks.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_TRANSFORMS_CPUSCHEDULE_DEFAULTKNOBS_H
#define INT21_TRANSFORMS_CPUSCHEDULE_DEFAULTKNOBS_H

#include "int21/Transforms/CPUSchedule.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

#include <cstdint>

namespace mlir::int21::cpu {

/// @cpu.matmul and @cpu.batch_matmul: C[m, n] += A[m, k] * B[k, n].
Knobs matmulKnobs(int64_t m, int64_t n, int64_t k);

/// @cpu.conv2d_nchw: the im2col contraction of f filters over oh*ow output
/// pixels and c*kh*kw taps, then the group's elementwise ops on
/// [n, f, oh, ow].
Knobs conv2dKnobs(int64_t f, int64_t oh, int64_t ow, int64_t taps);

/// @cpu.elementwise_<rank>d on an iteration space of this shape.
Knobs elementwiseKnobs(llvm::ArrayRef<int64_t> shape);

/// @cpu.outer_forall_<n>d: threads over the leading `parallelDims` (1 or 2)
/// dimensions of this shape.
Knobs outerForallKnobs(llvm::ArrayRef<int64_t> shape, unsigned parallelDims);

/// The domain of knob `knob` of template `sequence` whose knobs tile `dims`
/// (ScheduleChoice::dims), when the shape decides it; std::nullopt for knobs
/// whose domain is the template's own option list.
std::optional<llvm::SmallVector<int64_t>>
knobDomain(llvm::StringRef sequence, llvm::StringRef knob,
           llvm::ArrayRef<int64_t> dims);

/// Template-specific plausibility of `knobs` (see isPlausible).
bool checkKnobs(llvm::StringRef sequence, const Knobs &knobs,
                llvm::ArrayRef<int64_t> dims, std::string &why);

} // namespace mlir::int21::cpu

namespace mlir::int21::gpu {

using cpu::Knobs;

/// @gpu.matmul and @gpu.batch_matmul: C[m, n] += A[m, k] * B[k, n] per
/// block of blk_m x blk_n outputs, thr_y x thr_x threads.
Knobs matmulKnobs(int64_t m, int64_t n, int64_t k);

/// The @gpu.tile_fuse_<n>d based templates (elementwise, reduction,
/// pooling, conv2d) over the root's leading parallel dimensions `shape`;
/// `tiled` lists the dimensions the template tiles (all of them, or 1..3 of
/// four).
Knobs parallelKnobs(llvm::ArrayRef<int64_t> shape,
                    llvm::ArrayRef<unsigned> tiled);

/// The domain of a GPU template's knob (see cpu::knobDomain).
std::optional<llvm::SmallVector<int64_t>>
knobDomain(llvm::StringRef sequence, llvm::StringRef knob,
           llvm::ArrayRef<int64_t> dims);

/// GPU-specific plausibility: threads per block, shared memory.
bool checkKnobs(llvm::StringRef sequence, const Knobs &knobs,
                llvm::ArrayRef<int64_t> dims, std::string &why);

} // namespace mlir::int21::gpu

#endif // INT21_TRANSFORMS_CPUSCHEDULE_DEFAULTKNOBS_H
