#pragma once
#include "../runtime/base.hpp"
#include "../dists/map.hpp"
