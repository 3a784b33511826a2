#pragma once
#include "../runtime/base.hpp"
