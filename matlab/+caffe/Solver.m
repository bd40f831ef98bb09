classdef Solver < handle
  % caffe.Solver: a caffe::Solver of the type the solver file names (SGD
  % unless it says otherwise), as in Caffe 1.0's matcaffe.
  %
  %   solver = caffe.Solver(solver_file)
  %
  % net is the training net and test_nets the test nets, as caffe.Net
  % objects that live as long as the solver.  step(n) trains n iterations,
  % solve() trains up to max_iter, restore(file) resumes from a
  % .solverstate(.h5) snapshot.  Paths in the solver file are relative to
  % the current directory, as for the caffe tool.

  properties (Access = private)
    hSolver_self
    attributes
  end
  properties (SetAccess = private)
    net
    test_nets
  end

  methods
    function self = Solver(varargin)
      caffe.ensure_mex_();
      if nargin == 1 && isstruct(varargin{1})
        hSolver = varargin{1};
      else
        CHECK(nargin == 1 && ischar(varargin{1}), ...
          'usage: solver = caffe.Solver(solver_file)');
        hSolver = caffe_('get_solver', varargin{1});
      end
      self.hSolver_self = hSolver;
      self.attributes = caffe_('solver_get_attr', self.hSolver_self);
      self.net = caffe.Net(self.attributes.hNet_net);
      % Built in a local: see Layer.m.
      test_nets = [];
      for n = 1:numel(self.attributes.hNet_test_nets)
        test_net = caffe.Net(self.attributes.hNet_test_nets(n));
        if n == 1
          test_nets = test_net;
        else
          test_nets(n) = test_net;
        end
      end
      self.test_nets = test_nets;
    end
    function delete(self)
      if isempty(self.hSolver_self)
        return
      end
      try
        caffe_('delete_solver', self.hSolver_self);
      catch
      end
    end
    function iter = iter(self)
      iter = caffe_('solver_get_iter', self.hSolver_self);
    end
    function max_iter = max_iter(self)
      max_iter = caffe_('solver_get_max_iter', self.hSolver_self);
    end
    function restore(self, snapshot_filename)
      CHECK(ischar(snapshot_filename), 'snapshot_filename must be a string');
      caffe_('solver_restore', self.hSolver_self, snapshot_filename);
    end
    function solve(self)
      caffe_('solver_solve', self.hSolver_self);
    end
    function step(self, iters)
      CHECK(isscalar(iters) && iters > 0 && iters == round(iters), ...
        'iters must be a positive integer');
      caffe_('solver_step', self.hSolver_self, double(iters));
    end
  end
end
