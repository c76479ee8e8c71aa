#include "trace/trace-hw_rdma.h"
