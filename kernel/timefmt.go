package kernel
