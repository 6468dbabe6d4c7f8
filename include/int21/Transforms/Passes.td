//===- Passes.td - int21 transformation passes ---------------*- tablegen -*-===//

#ifndef INT21_TRANSFORMS_PASSES_TD
#define INT21_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def Int21FormFusionGroups : Pass<"int21-form-fusion-groups", "::mlir::func::FuncOp"> {
  let summary = "Group int21 ops into fusion groups, one per future kernel";
  let description = [{
    Forms `int21.fusion_group` regions with the default policy: every compute
    op starts a group, and an elementwise op joins the group of its producer
    when it is that producer's only user (conv + bias + relu, matmul + add +
    gelu, ...). Data movement ops (reshape, transpose, slice, ...) and
    constants stay outside groups. Ops already in a group are left alone.
  }];
  let options = [
    Option<"fuseElementwise", "fuse-elementwise", "bool", /*default=*/"true",
           "Fuse elementwise consumers into the group of their producer">,
    Option<"maxGroupSize", "max-group-size", "unsigned", /*default=*/"16",
           "The most ops one group may hold">,
  ];
  let dependentDialects = ["::int21::Int21Dialect"];
}

def Int21InlineFusionGroups : Pass<"int21-inline-fusion-groups", "::mlir::func::FuncOp"> {
  let summary = "Dissolve fusion groups, moving their bodies into the parent";
  let description = [{
    The inverse of `int21-form-fusion-groups`: every `int21.fusion_group` is
    replaced by the ops of its body, and its results by the yielded values.
    Used to regroup a function under another fusion policy.
  }];
}

def Int21LowerToLinalg : Pass<"int21-lower-to-linalg", "::mlir::func::FuncOp"> {
  let summary = "Lower int21 ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Rewrites every int21 op (inside fusion groups or not) into upstream ops
    on tensors: named linalg ops where they exist (matmul, batch_matmul,
    transpose, reduce, softmax, the convolution and pooling families), and
    `linalg.generic` otherwise, and `scf.for` loops where a result element
    depends on earlier ones (scatters, scans). Elementwise ops share one table-driven
    lowering whose broadcasting becomes indexing maps. Fusion groups stay, so
    that schedules can be applied per group afterwards. An op that cannot be
    lowered (for instance an unsupported element type) is an error at its
    location.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::cf::ControlFlowDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::memref::MemRefDialect", "::mlir::func::FuncDialect",
    "::mlir::bufferization::BufferizationDialect"
  ];
  let options = [
    Option<"filterLanes", "filter-lanes", "bool", /*default=*/"true",
           "Convolutions whose filters fill whole vectors run them along "
           "the vectors: one-group 2-D ones with a constant weight in blocks "
           "of 16 filters (@cpu.conv2d_filter_lanes), pointwise ones on maps "
           "whose pixels fill the vectors badly as a transposed product "
           "(@cpu.matmul_transposed, @cpu.matmul_panels_transposed with a "
           "constant weight); depthwise ones with 5x5 windows on "
           "narrow or strided rows with blocks of 16 channels along them "
           "(@cpu.depthwise_channel_lanes); products with a constant right "
           "operand with it in panels of 16 columns (@cpu.matmul_panels). "
           "Off for GPU targets">
  ];
}

def Int21OutlineWeights : Pass<"int21-outline-weights", "::mlir::func::FuncOp"> {
  let summary = "Turn the weights of an entry function into arguments";
  let description = [{
    Prepares an entry function for an engine, whose weights live in the
    engine file rather than in the code. First, transposes, reshapes and
    copies whose only input is a constant are computed at compile time (a
    Gemm's transposed weight costs nothing at run time). Then every tensor
    constant of at least `min-elements` elements that is not a splat becomes a
    new argument appended after the existing ones; the argument carries the
    constant's value as `int21.weight` (a `dense_resource` blob keeps its
    name) and `bufferization.writable = false`, so that bufferization never
    writes into it. The original arguments become read-only too.
  }];
  let options = [
    Option<"minElements", "min-elements", "int64_t", /*default=*/"64",
           "Constants with fewer elements stay in the code">,
  ];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect"
  ];
}

def Int21DecomposeAggregates : Pass<"int21-decompose-aggregates", "::mlir::func::FuncOp"> {
  let summary = "Decompose aggregate linalg ops (softmax) into simpler ones";
  let description = [{
    Rewrites every op implementing `linalg::AggregatedOpInterface` that a
    schedule left alone (linalg.softmax) into the ops it is made of (reductions
    and generics), which bufferize and lower to loops.
  }];
}

def Int21DynamicExpandViews : Pass<"int21-dynamic-expand-views", "::mlir::func::FuncOp"> {
  let summary = "View memref.expand_shape with several dynamic extents in a group through memref.reinterpret_cast";
  let description = [{
    Splitting one dimension into several dynamic extents (the [B * T, N]
    product of a dynamic model's linear layer viewed as [B, T, N], a reshape
    to extents computed at run time) is an expand_shape whose reassociation
    group holds more than one dynamic extent, which upstream's
    `expand-strided-metadata` cannot lower. This pass rewrites each into a
    `memref.reinterpret_cast` of the source's base buffer: the source's
    offset, the expanded sizes, and the strides of each group's dimensions
    from the source dimension's stride times the extents inside it.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def Int21ExpandStridedCopies : Pass<"int21-expand-strided-copies", "::mlir::func::FuncOp"> {
  let summary = "Turn memref.copy between strided buffers into row loops of vector transfers";
  let description = [{
    `finalize-memref-to-llvm` lowers a copy between buffers that are not both
    contiguous into a call to `memrefCopy`, a function of MLIR's runner
    library that engines do not link. This pass rewrites such copies into
    loops over their rows, each row moved by vector transfers of 512 bits
    (the last masked; one transfer for a short static row): the interior of
    a padded window, a slice, an operand of a concat. A copy whose rows are
    not contiguous on both sides, or of elements narrower than a byte,
    becomes `linalg.copy` (scalar loops). Contiguous copies stay memcpy.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect"];
}

def Int21ApproximateMath : Pass<"int21-approximate-math", "::mlir::func::FuncOp"> {
  let summary = "Expand exp, erf and tanh into polynomial approximations";
  let description = [{
    On the CPU, `math.exp`, `math.erf` and `math.tanh` otherwise become libm
    calls, one per element: a vector of sixteen lanes is unrolled into
    sixteen scalar calls. This pass expands them into MLIR's polynomial
    approximations (f32; f16 and bf16 computed in f32), made of arithmetic
    that stays vectorized. Accuracy: a few units in the last place for exp
    and tanh, an absolute error under 1e-6 for erf.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def Int21SignlessSignature : Pass<"int21-signless-signature", "::mlir::func::FuncOp"> {
  let summary = "Give a lowered function signless integer arguments and results";
  let description = [{
    After lowering to linalg, unsigned tensors only appear at the function
    boundary, joined to the signless body by `tensor.bitcast`. This pass makes
    the signature signless and drops those casts, so that bufferization sees
    no bitcasts. Engines keep the original (unsigned) types in their metadata.
    A value returned more than once is copied (`bufferization.alloc_tensor`)
    for each return after its first, so that every result gets a buffer of
    its own.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def Int21PlanWorkspace : Pass<"int21-plan-workspace", "::mlir::func::FuncOp"> {
  let summary = "Place a function's static buffers in one workspace argument";
  let description = [{
    Runs after bufferization, before the deallocation pipeline. Every
    `memref.alloc` of a static shape at the top level of the function becomes
    a `memref.view` at a 64-byte aligned offset of one new trailing argument,
    `memref<Nxi8>` marked `int21.workspace = N : i64`, that the runtime allocates once
    and reuses across runs: no allocation, page fault or zeroing per run.
    Buffers whose lifetimes do not overlap share bytes. Allocations inside
    loops (per-thread temporaries) stay as they are.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect"];
}

def Int21DetachEmptyArguments
    : Pass<"int21-detach-empty-arguments", "::mlir::func::FuncOp"> {
  let summary = "Give arguments without elements a type with no data to pass";
  let description = [{
    A function argument whose memref has no elements (a dimension of 0)
    holds no data, but its identity layout has no strides either, so the
    bare-pointer calling convention cannot pass it. Its uses read or write
    nothing: they move to a local `memref.alloca` of the same type, and the
    argument becomes `memref<0xi8, strided<[1]>>`, one pointer that nothing
    dereferences. Runs on bufferized functions before `convert-func-to-llvm`.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def Int21InlineDeallocHelpers
    : Pass<"int21-inline-dealloc-helpers", "::mlir::ModuleOp"> {
  let summary = "Inline the deallocation pipeline's helper functions";
  let description = [{
    Where the ownership-based deallocation cannot tell which of several
    buffers alias (a loop that carries buffers its body allocates afresh),
    `convert-bufferization-to-memref` calls a generated helper,
    `@dealloc_helper`, on dynamically shaped memrefs, which the
    bare-pointer calling convention cannot pass. Each call is replaced by
    the helper's body, and the helper erased.
  }];
}

def Int21DynamicSignature : Pass<"int21-dynamic-signature", "::mlir::ModuleOp"> {
  let summary = "Pass @main's dynamic extents in one array, with a function computing the outputs'";
  let description = [{
    Runs on buffers, after the outputs became arguments (and after
    int21-plan-workspace). When @main has arguments of dynamic extents, it
    gets one more, last: `memref<Kxi64>` marked `int21.extents = K`, every
    dynamic extent of every input then of every output in argument order.
    Each such argument becomes a rank-0 memref (its pointer, as the
    bare-pointer calling convention passes it) viewed at its extents with
    `memref.reinterpret_cast`. A new function `@int21_shapes(%extents) ->
    i32` fills in the outputs' extents from the inputs' and returns 0: the
    runtime calls it first, then allocates the outputs. An output whose extent depends on
    anything but input extents (data) is an error naming it. The lowering's
    extent checks (`cf.assert` on extents) move from @main into
    @int21_shapes, which returns the number of the first that fails (their
    messages in order on the module as `int21.extent_checks`).
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def Int21CPUEntryPoint : Pass<"int21-cpu-entry-point", "::mlir::ModuleOp"> {
  let summary = "Add the engine entry point `int21_entry(void **args)`";
  let description = [{
    Runs on the LLVM dialect, after `convert-func-to-llvm` with the bare
    pointer calling convention. `@main` becomes internal and a new external
    function `int21_entry` takes an array of pointers (inputs, weights,
    outputs: the order of @main's arguments) and calls it, the same for every
    model. A dynamic model's `@int21_shapes(extents, arguments...)` becomes
    internal the same way, behind `int32_t int21_shapes(int64_t *extents,
    void **args)`, args laid out as int21_entry's.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def Int21SelectSchedules : Pass<"int21-select-schedules", "::mlir::ModuleOp"> {
  let summary = "Write a checked #int21.schedule on every fusion group";
  let description = [{
    Runs on linalg on tensors with fusion groups (a linalg op outside a group
    becomes a group of its own; softmax is decomposed; reshapes at a group's
    boundary move out). Each group gets `#int21.schedule<@template, {...}>`
    with every knob of the template: its own schedule when it has one whose
    template fits it, else the first template of the target's default rules
    (lib/Transforms/Schedule/{CPU,GPU}/Plans.cpp), the knob values of the
    `knobs` option over either, the defaults for the group's work for the
    rest. Every schedule is checked: the template and its knobs against the
    templates' own `transform.tune.knob`/`transform.tune.alternatives` ops,
    each value against its domain for this group's work and the template's
    rules (Rules.cpp); a schedule that fails is an error naming the template
    and the knob. A group's own schedule whose template does not fit the
    group is an error with `strict`, else replaced by the default. A group no
    template schedules keeps no schedule. For a GPU target, splat constants
    become fills and each group is prepared for blocks and threads first.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "The template set: cpu, sm_80 or sm_90">,
    Option<"knobs", "knobs", "std::string", /*default=*/"\"\"",
           "Knob values over every schedule of a template: "
           "TEMPLATE.NAME=VALUE,... (for example "
           "cpu.matmul.reg_m=4,cpu.matmul.cache_k=128)">,
    Option<"strict", "strict", "bool", /*default=*/"false",
           "A group's own schedule whose template does not fit it is an "
           "error (by default the group gets the default schedule)">,
  ];
  let dependentDialects = ["::mlir::transform::TransformDialect"];
}

def Int21ApplySchedules : Pass<"int21-apply-schedules", "::mlir::ModuleOp"> {
  let summary = "Apply each fusion group's #int21.schedule and dissolve the groups";
  let description = [{
    Applies the schedule template each group names (int21-select-schedules'
    output), its knobs resolved from the schedule, with the transform
    interpreter on a clone of the group: outer tiles become `scf.forall`
    (threads, or GPU blocks and threads), cache tiles `scf.for`, inner tiles
    are vectorized. A template that does not apply leaves the group as it
    was and the next template of the target's default rules is tried, unless
    `strict`, where it is an error. Groups without a schedule are left
    unscheduled. The groups are dissolved at the end; the output is still on
    tensors.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "The template set: cpu, sm_80 or sm_90">,
    Option<"threads", "threads", "bool", /*default=*/"true",
           "CPU: run outer tiles as scf.forall (threads); false: one tile">,
    Option<"strict", "strict", "bool", /*default=*/"false",
           "A schedule that does not apply is an error">,
    Option<"hostCheck", "host-check", "bool", /*default=*/"false",
           "GPU: drop the memory spaces of promoted tiles (the CPU-side check)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::scf::SCFDialect",
    "::mlir::transform::TransformDialect", "::mlir::vector::VectorDialect",
    "::mlir::gpu::GPUDialect", "::mlir::bufferization::BufferizationDialect"
  ];
}

def Int21CPUSchedule : Pass<"int21-cpu-schedule", "::mlir::ModuleOp"> {
  let summary = "Select and apply the CPU schedule of every fusion group";
  let description = [{
    int21-select-schedules then int21-apply-schedules for the CPU (the
    `strict` option binding only the groups' own schedules). Each group (and
    each linalg op outside a group, as a group of its own) is matched to a
    schedule template from lib/Transforms/Schedule/CPU, a transform-dialect
    script embedded in the compiler; the template's `transform.tune.knob`s
    are resolved from the payload's shape (or from the group's
    `#int21.schedule<@cpu...., {...}>` when it has one) and
    the script is applied with the transform interpreter: outer tiles become
    `scf.forall` (threads), cache tiles `scf.for`, and the inner tiles are
    vectorized and lowered to register-level vector ops. When a template does
    not apply to a group, the next, more generic one is tried; when none
    does, the group is left unscheduled. Softmax is decomposed into generics, and the
    groups are dissolved at the end. The output is still on tensors.

    A knob's value comes, in order of precedence, from the `knobs` option,
    from the group's `#int21.schedule`, or from the shape. A
    `transform.tune.alternatives` is resolved the same way, its value being
    the index of the region to run (0 when nothing names it).
  }];
  let options = [
    Option<"threads", "threads", "bool", /*default=*/"true",
           "Run outer tiles as scf.forall (threads); false: sequential scf.for">,
    Option<"knobs", "knobs", "std::string", /*default=*/"\"\"",
           "Knob and alternative values over the defaults of every group a "
           "template schedules: TEMPLATE.NAME=VALUE,... (for example "
           "cpu.matmul.reg_m=4,cpu.matmul.cache_k=128)">,
    Option<"strict", "strict", "bool", /*default=*/"false",
           "A group whose #int21.schedule does not apply is an error (by "
           "default the group falls back to its default schedule)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::scf::SCFDialect",
    "::mlir::transform::TransformDialect", "::mlir::vector::VectorDialect"
  ];
}

def Int21GPUSchedule : Pass<"int21-gpu-schedule", "::mlir::ModuleOp"> {
  let summary = "Select and apply the GPU schedule of every fusion group";
  let description = [{
    The GPU counterpart of `int21-cpu-schedule`, with the same machinery
    (classification, knob resolution, `#int21.schedule`, the `knobs` and
    `strict` options) and the templates of lib/Transforms/Schedule/GPU:
    each group is tiled into blocks (`scf.forall` mapped to `#gpu.block`)
    and threads (`#gpu.thread`); a matmul's K loop is tiled and its operand
    tiles promoted to shared memory (`#gpu.address_space<workgroup>`). Before
    the templates, chains of elementwise generics in a group are fused and
    producers get destinations of their own. The output is on tensors, ready
    for bufferization and `int21-gpu-map-forall`. With `host-check`, the
    memory spaces are dropped, so that the tiled IR also compiles for the CPU
    (the CPU-side check of the GPU schedules).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "The GPU the schedules are for (sm_80, sm_90)">,
    Option<"knobs", "knobs", "std::string", /*default=*/"\"\"",
           "Knob and alternative values over the defaults: "
           "TEMPLATE.NAME=VALUE,... (for example gpu.matmul.blk_k=16)">,
    Option<"strict", "strict", "bool", /*default=*/"false",
           "A group whose #int21.schedule does not apply is an error">,
    Option<"hostCheck", "host-check", "bool", /*default=*/"false",
           "Drop the memory spaces of promoted tiles (for the CPU-side check)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::scf::SCFDialect",
    "::mlir::transform::TransformDialect", "::mlir::gpu::GPUDialect",
    "::mlir::bufferization::BufferizationDialect"
  ];
}

def Int21GPUMapForall : Pass<"int21-gpu-map-forall", "::mlir::func::FuncOp"> {
  let summary = "Map the block and thread loops of a bufferized function to gpu.launch";
  let description = [{
    Runs on bufferized functions whose kernels are `scf.forall` loops mapped
    to `#gpu.block` (int21-gpu-schedule's output). First the kernels are made
    ready to map: self-copies are erased, copies inside kernels become
    `linalg.copy`, linalg ops a block runs outside its thread loops (shared
    memory copies, say) are spread over the block's threads, buffers a whole
    block uses go to shared memory and a thread's own to `memref.alloca`.
    Compute left on the host (a group no template scheduled) becomes a
    kernel of one block and one thread. Then each block loop becomes a
    `gpu.launch` (`transform.gpu.map_forall_to_blocks` and
    `map_nested_forall_to_threads`, with the block size its thread loops
    need) and shared buffers become workgroup attributions. The host code
    left is checked: anything but constants, static views, launches and
    copies is an error naming the op.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::transform::TransformDialect"
  ];
}

def Int21GPUExpandHostCopies
    : Pass<"int21-gpu-expand-host-copies", "::mlir::func::FuncOp"> {
  let summary = "Turn host copies between strided buffers, and host fills, "
                "into kernels of many blocks";
  let description = [{
    A GPU engine's plan moves bytes with one `cuMemcpy` per `memref.copy`,
    which needs both buffers contiguous (row-major, static shape), and
    `int21-gpu-map-forall` runs compute left on the host in one block. Runs
    on bufferized functions before `int21-gpu-map-forall`: every copy of the
    function body whose source or target is not contiguous (a slice of a
    fused projection, the interior of a padded buffer), and every
    `linalg.fill` of a static buffer (the zeros around a padded buffer),
    becomes a block loop that int21-gpu-map-forall maps like any other
    kernel: one thread per element, `block-size` threads a block, as many
    blocks as the buffer needs. A thread turns its linear index into the
    buffer's indices and moves (or stores) one element with
    `memref.load`/`memref.store` through the views, so any static strides
    and offsets work; threads check that their element exists when the
    element count is not a multiple of the block size (a buffer smaller
    than a block gets one block of as many threads as elements). Contiguous
    copies stay plan copies; copies and fills inside kernels and those with
    dynamic shapes are left alone; one of no elements is erased. The
    CPU-side check of the GPU schedules (`int21-compile --target=cpu
    --gpu-schedules=...`) runs this pass too, so the kernels' indexing is
    checked against the reference outputs there.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block of a copy kernel (1 to 1024)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"
  ];
}

def Int21GPUMergeModules : Pass<"int21-gpu-merge-modules", "::mlir::ModuleOp"> {
  let summary = "Move every outlined kernel into one gpu.module";
  let description = [{
    `gpu-kernel-outlining` gives every kernel a gpu.module of its own; this
    pass moves them all into one, `@int21_kernels`, and updates the
    `gpu.launch_func` ops, so that the model's kernels become one PTX module
    (one `.entry` per kernel) and one `gpu.binary`.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def Int21GPUAlignArguments : Pass<"int21-gpu-align-arguments", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Tell LLVM that the kernels' pointer arguments are 16-byte aligned";
  let description = [{
    Runs on a gpu.module lowered to the LLVM dialect: every pointer argument
    of a kernel (`gpu.kernel` or `nvvm.kernel`) gets `llvm.align = 16`. The
    buffers kernels receive are allocations (256-byte aligned), weights and
    workspace buffers at 64-byte offsets (the static offset of a view is
    added in the kernel, not in the pointer), so the claim holds; with it
    LLVM proves the alignment of vector loads and stores (ld.global.v4.f32)
    whose offsets are multiples of their width, and splits the others.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def Int21GPULowerVectorTransfers : Pass<"int21-gpu-lower-vector-transfers", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower the kernels' 1-D vector transfers to vector loads and stores";
  let description = [{
    In-bounds 1-D `vector.transfer_read`/`transfer_write` ops on memrefs (what
    `convert-vector-to-scf{full-unroll}` leaves of the templates' vectorized
    copies and register tiles) become `vector.load`/`vector.store`, which
    `convert-gpu-to-nvvm` lowers in any memory space (shared memory
    included, which `convert-vector-to-llvm` cannot type on its own).
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect", "::mlir::memref::MemRefDialect"];
}

def Int21OutlineKernels : Pass<"int21-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "Outline every loop nest of a bufferized function into a kernel function";
  let description = [{
    Runs on buffers, before the loops are lowered: every kernel of a
    function's body, an op with regions (an `scf.forall`, `scf.for` or
    linalg op) and the ops after it up to the last that uses a value it
    defines (the write of a loop's vector result, say), becomes a
    `func.func @int21_kernel_<hash>` of its own, called in its place. A
    kernel whose values the function returns stays in place. The values it
    uses from the function are the
    kernel's arguments (memrefs with static shapes and strides, as the
    bare-pointer calling convention needs, and scalars); constants and
    `memref.get_global` are cloned into it. The name is a hash of the
    kernel's body, so that the same kernel gets the same name in any model
    (the object cache keys on it) and identical kernels of one model share
    one function. An op that uses a value no kernel argument can take stays
    where it is.

    This lets the compiler run LLVM on every kernel separately, in parallel,
    and cache its object code.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

#endif // INT21_TRANSFORMS_PASSES_TD
