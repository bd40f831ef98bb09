function solver = get_solver(solver_file)
% solver = caffe.get_solver(solver_file)
%   Builds a solver (and its nets) from a solver prototxt.

solver = caffe.Solver(solver_file);
end
