#include "trace/trace-hw_rdma_mlx5.h"
