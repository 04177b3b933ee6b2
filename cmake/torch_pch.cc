// The source of petname_torch_pch (cmake/torch.cmake), which exists for its precompiled header.
