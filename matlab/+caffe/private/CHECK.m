function CHECK(expr, error_msg)
% CHECK(expr, error_msg)  (internal)
%   Raises error_msg as an error with identifier caffe:usage when expr is
%   false; the argument checks of the .m API go through it.

if ~expr
  error('caffe:usage', '%s', error_msg);
end
end
