# frozen_string_literal: true

require "json"
require "time"

module Billing
  class Error < StandardError; end

  module Formatting
    def self.cents(amount)
      format("%.2f", amount / 100.0)
    end

    def money(amount)
      "€#{Formatting.cents(amount)}"
    end
  end

  class Invoice
    include Formatting

    attr_reader :number, :lines

    def initialize(number, lines = [])
      @number = number
      @lines = lines
    end

    def add(description, amount)
      raise Error, "amount must be positive" unless amount.positive?

      lines << { description: description, amount: amount }
      self
    end

    def total
      lines.sum { |line| line[:amount] }
    end

    def to_json(*args)
      { number: number, total: total, lines: lines }.to_json(*args)
    end

    def self.parse(json)
      data = JSON.parse(json, symbolize_names: true)
      new(data[:number], data[:lines])
    end

    class << self
      def blank
        new("draft")
      end
    end

    private

    def overdue?(due_at)
      Time.now > due_at
    end
  end

  class Ledger
    def initialize
      @invoices = {}
    end

    def <<(invoice)
      @invoices[invoice.number] = invoice
    end

    def balance
      @invoices.values.sum(&:total)
    end
  end
end

def print_invoice(invoice)
  puts "#{invoice.number}: #{invoice.money(invoice.total)}"
end
