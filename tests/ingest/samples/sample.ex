defmodule Shop.Cart do
  @moduledoc """
  A shopping cart: items, totals and discounts.
  """

  alias Shop.{Item, Discount}

  defstruct items: [], discount: nil

  @type t :: %__MODULE__{items: [Item.t()], discount: Discount.t() | nil}

  defmodule Line do
    @moduledoc false
    defstruct [:item, :quantity]

    def subtotal(%__MODULE__{item: item, quantity: quantity}) do
      item.price * quantity
    end
  end

  @doc "An empty cart."
  @spec new() :: t()
  def new, do: %__MODULE__{}

  @doc "Adds `quantity` of `item`."
  def add(cart, item, quantity \\ 1)

  def add(%__MODULE__{} = cart, _item, 0), do: cart

  def add(%__MODULE__{items: items} = cart, item, quantity) when quantity > 0 do
    %{cart | items: [%Line{item: item, quantity: quantity} | items]}
  end

  def total(%__MODULE__{items: items, discount: discount}) do
    items
    |> Enum.map(&Line.subtotal/1)
    |> Enum.sum()
    |> apply_discount(discount)
  end

  defp apply_discount(amount, nil), do: amount

  defp apply_discount(amount, %Discount{percent: percent}) do
    amount - div(amount * percent, 100)
  end

  defmacro with_cart(cart, do: block) do
    quote do
      var!(cart) = unquote(cart)
      unquote(block)
    end
  end

  defguard is_quantity(value) when is_integer(value) and value >= 0
end

defprotocol Shop.Priced do
  @doc "The price in cents."
  def price(thing)
end

defimpl Shop.Priced, for: Shop.Cart do
  def price(cart), do: Shop.Cart.total(cart)
end

defmodule Shop.Checkout do
  use GenServer

  def start_link(opts) do
    GenServer.start_link(__MODULE__, opts, name: __MODULE__)
  end

  @impl true
  def init(opts) do
    {:ok, Map.new(opts)}
  end

  @impl true
  def handle_call({:pay, cart}, _from, state) do
    {:reply, Shop.Priced.price(cart), state}
  end
end
