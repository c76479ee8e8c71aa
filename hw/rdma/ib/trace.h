#include "trace/trace-hw_rdma_ib.h"
